package topics

import (
	"errors"
	"fmt"
	"sort"
)

// EventType declares one event type: its name, the topic it lives on and
// the newest payload schema version this binary understands.
type EventType struct {
	Name    string
	Topic   string
	Version uint16
}

// Errors for envelopes the catalog does not accept.
var (
	ErrUnknownType   = errors.New("unknown event type")
	ErrSchemaTooNew  = errors.New("event schema version newer than this binary")
	ErrWrongTopic    = errors.New("event type on the wrong topic")
	ErrDuplicateType = errors.New("event type declared twice")
)

// Policy says what a reader does with an envelope it does not understand.
type Policy int

const (
	// Reject stops with a typed error: the safe default for anything that
	// decides (a relayer must not skip a withdrawal it cannot read).
	Reject Policy = iota
	// Skip passes over the envelope and counts it: for readers such as the
	// analytics sink that must not stall on a newer producer.
	Skip
)

// Catalog is the set of event types a binary understands. Build it once at
// start-up with [NewCatalog]; it is read-only afterwards.
type Catalog struct {
	types map[string]EventType
}

// NewCatalog builds a catalog from declarations. A name declared twice is
// an error, so two packages cannot silently disagree about a type.
func NewCatalog(types ...EventType) (*Catalog, error) {
	c := &Catalog{types: make(map[string]EventType, len(types))}
	for _, t := range types {
		if _, dup := c.types[t.Name]; dup {
			return nil, fmt.Errorf("%w: %s", ErrDuplicateType, t.Name)
		}
		if _, err := Spec(t.Topic); err != nil {
			return nil, fmt.Errorf("event type %s: %w", t.Name, err)
		}
		c.types[t.Name] = t
	}
	return c, nil
}

// Lookup returns the declaration of a type.
func (c *Catalog) Lookup(name string) (EventType, bool) {
	t, ok := c.types[name]
	return t, ok
}

// Names lists the declared types, sorted.
func (c *Catalog) Names() []string {
	out := make([]string, 0, len(c.types))
	for n := range c.types {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Check says whether this binary may act on e. It returns nil, or an error
// wrapping ErrUnknownType or ErrSchemaTooNew that names the type and version.
func (c *Catalog) Check(e *Envelope) error {
	t, ok := c.types[e.Type]
	if !ok {
		return fmt.Errorf("%w: %q (event %s)", ErrUnknownType, e.Type, e.ID)
	}
	if e.SchemaVersion > t.Version {
		return fmt.Errorf("%w: %s v%d, this binary reads up to v%d (event %s)",
			ErrSchemaTooNew, e.Type, e.SchemaVersion, t.Version, e.ID)
	}
	return nil
}
