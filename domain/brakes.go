package domain

import (
	"errors"
	"fmt"
	"time"
)

// Event type names of the relay's brakes: its emergency pause and the
// operator's decisions on held mints.
const (
	TypeRelayPaused  = "relay.paused"
	TypeRelayResumed = "relay.resumed"
)

// PauseAggregate is the aggregate (and partition key) of every pause and
// resume: one partition orders them all.
const PauseAggregate = "relay:pause"

// Bounds of what an operator writes into the log.
const (
	MaxOperatorBytes  = 128
	MaxReasonBytes    = 1024
	MaxRequestIDBytes = 64
)

// ErrBrakeInput: an operator's pause, resume, hold or release that cannot
// be recorded (no operator or reason, too long, no request id).
var ErrBrakeInput = errors.New("invalid operator action")

// OperatorAction is who did what and why, as every brake event records it.
type OperatorAction struct {
	Operator string `msgpack:"operator" json:"operator"`
	Reason   string `msgpack:"reason" json:"reason"`
	// RequestID makes each action a fact of its own; the same request
	// appended twice (a retried command, an inbox file taken twice) is one.
	RequestID string `msgpack:"request_id" json:"requestId"`
	// At is when the operator asked (unix nanos, the operator's clock):
	// shown, never used to decide.
	At int64 `msgpack:"at" json:"at"`
}

// Check refuses an action that does not say who took it and why, or says
// it at a length the log should not hold.
func (a OperatorAction) Check() error {
	switch {
	case a.Operator == "" || a.Reason == "":
		return fmt.Errorf("%w: an operator and a reason are required", ErrBrakeInput)
	case len(a.Operator) > MaxOperatorBytes || len(a.Reason) > MaxReasonBytes:
		return fmt.Errorf("%w: the operator is at most %d bytes, the reason at most %d", ErrBrakeInput, MaxOperatorBytes, MaxReasonBytes)
	case a.RequestID == "" || len(a.RequestID) > MaxRequestIDBytes:
		return fmt.Errorf("%w: a request id of 1..%d bytes is required", ErrBrakeInput, MaxRequestIDBytes)
	}
	return nil
}

// RelayPaused: an operator stopped the relay sending anything (mints,
// claims, anchors, refunds). Indexing and confirming go on.
type RelayPaused struct {
	OperatorAction
}

func (e RelayPaused) EventType() string   { return TypeRelayPaused }
func (e RelayPaused) SourceKey() string   { return PauseAggregate + "/paused/" + e.RequestID }
func (e RelayPaused) AggregateID() string { return PauseAggregate }

// RelayResumed: an operator holding the admin credential let the relay
// send again.
type RelayResumed struct {
	OperatorAction
}

func (e RelayResumed) EventType() string   { return TypeRelayResumed }
func (e RelayResumed) SourceKey() string   { return PauseAggregate + "/resumed/" + e.RequestID }
func (e RelayResumed) AggregateID() string { return PauseAggregate }

// PauseState is the fold of the pause events: the latest one decides.
type PauseState struct {
	Paused bool `json:"paused"`
	// Since is when the latest pause or resume was asked.
	Since    time.Time `json:"since"`
	Operator string    `json:"operator"`
	Reason   string    `json:"reason"`
}

// Apply folds one pause or resume; other events change nothing.
func (s PauseState) Apply(ev Event) PauseState {
	switch e := ev.(type) {
	case RelayPaused:
		return PauseState{Paused: true, Since: time.Unix(0, e.At).UTC(), Operator: e.Operator, Reason: e.Reason}
	case *RelayPaused:
		return s.Apply(*e)
	case RelayResumed:
		return PauseState{Since: time.Unix(0, e.At).UTC(), Operator: e.Operator, Reason: e.Reason}
	case *RelayResumed:
		return s.Apply(*e)
	}
	return s
}

// ErrSendsPaused: the relay is paused; nothing was signed or sent, and
// the request is safe to drive again after a resume.
var ErrSendsPaused = errors.New("relay paused: nothing is sent")
