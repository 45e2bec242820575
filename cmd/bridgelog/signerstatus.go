package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/bridgelog/bridgelog/adapters/embeddedlog"
	"github.com/bridgelog/bridgelog/adapters/signermesh"
	"github.com/bridgelog/bridgelog/domain/twophase"
	"github.com/bridgelog/bridgelog/handlers/signing"
)

// recentCompleted is how many completed events a status lists (every
// other event is listed).
const recentCompleted = 10

// signerStatusDoc is what `signer status` prints and GET /status answers.
type signerStatusDoc struct {
	Self    string         `json:"self"`
	Running bool           `json:"running"` // false: replayed from a stopped signer's log
	Session uint64         `json:"session"`
	At      time.Time      `json:"at"`
	Group   statusGroup    `json:"group"`
	Phases  map[string]int `json:"phases"`
	// Events are every event not Completed, and the most recent
	// completed ones.
	Events []statusEvent `json:"events"`
	// Profile B: the lock certificates open events hold, and the
	// outpoints they reserve (no other event may spend them).
	Certificates []statusCertificate `json:"certificates,omitempty"`
	Reserved     []statusReservation `json:"reserved,omitempty"`
	Streams      []statusStream      `json:"streams"`
	Peers        []statusPeer        `json:"peers"`
	Nodes        []statusNode        `json:"nodes,omitempty"`
}

type statusGroup struct {
	Profile string `json:"profile"`
	Members int    `json:"members"`
	Quorum  int    `json:"quorum"`
	Faults  int    `json:"faults,omitempty"` // Profile B's f
}

type statusCertificate struct {
	Event        string   `json:"event"`
	Stream       string   `json:"stream"`
	Nonce        uint64   `json:"nonce"`
	Epoch        uint32   `json:"epoch"`
	Round        uint32   `json:"round"`
	Anchor       uint64   `json:"anchor"` // the Kaspa DAA score the plan was built at
	TemplateHash string   `json:"templateHash"`
	Signers      []string `json:"signers"`
	Outpoints    int      `json:"outpoints"`
}

type statusReservation struct {
	Outpoint     string `json:"outpoint"`
	Event        string `json:"event"`
	Round        uint32 `json:"round"`
	TemplateHash string `json:"templateHash"`
	Anchor       uint64 `json:"anchor"`
}

type statusEvent struct {
	ID          string    `json:"id"`
	Stream      string    `json:"stream"`
	Nonce       uint64    `json:"nonce"`
	Destination string    `json:"destination"`
	Amount      uint64    `json:"amount"`
	Phase       string    `json:"phase"`
	Epoch       uint32    `json:"epoch"`
	Round       uint32    `json:"round"`
	PhaseSince  time.Time `json:"phaseSince"`
	PayoutTx    string    `json:"payoutTx,omitempty"`
	// Refusal is a Refused event's reason; Refund says whether its
	// refusal certificate has a quorum ("certified") or how many of the
	// quorum's signatures are held ("2/3 signatures").
	Refusal string `json:"refusal,omitempty"`
	Refund  string `json:"refund,omitempty"`
}

type statusStream struct {
	Stream  string `json:"stream"`
	Next    uint64 `json:"next"`    // the next nonce to pay
	Pending int    `json:"pending"` // requested events waiting behind it
	// Blocked: Next was never requested (a hole) while later nonces were.
	Blocked      bool       `json:"blocked"`
	BlockedSince *time.Time `json:"blockedSince,omitempty"`
}

type statusPeer struct {
	ID          string     `json:"id"`
	Session     uint64     `json:"session"`
	LastContact *time.Time `json:"lastContact,omitempty"`
	// The link, from a running signer only.
	Connected *bool      `json:"connected,omitempty"`
	Since     *time.Time `json:"since,omitempty"`
	LastError string     `json:"lastError,omitempty"`
}

type statusNode struct {
	Name    string `json:"name"`
	Address string `json:"address,omitempty"`
	Up      bool   `json:"up"`
	// While the node is not up: since when it fails (none before its
	// first attempt) and the latest reason.
	Since *time.Time `json:"since,omitempty"`
	Error string     `json:"error,omitempty"`
}

func timePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// newStatusDoc builds the document from the protocol's status and, for
// a running signer, its links and nodes.
func newStatusDoc(st signing.Status, running bool, now time.Time, links []signermesh.PeerStatus, nodes []statusNode) signerStatusDoc {
	doc := signerStatusDoc{Self: string(st.Self), Running: running, Session: st.Session, At: now.UTC(), Phases: map[string]int{},
		Nodes: nodes, Group: statusGroup{Profile: string(st.Group.Profile), Members: len(st.Group.Members), Quorum: st.Group.Quorum,
			Faults: st.Group.Faults}}
	var completed []statusEvent
	events := map[twophase.Hash]twophase.SigningEvent{}
	for _, e := range st.Events {
		events[e.ID] = e.Event
		doc.Phases[e.Phase.String()]++
		se := statusEvent{ID: e.ID.Hex(), Stream: e.Event.Stream, Nonce: e.Event.Nonce, Destination: e.Event.Destination,
			Amount: e.Event.Amount, Phase: e.Phase.String(), Epoch: e.Epoch, Round: e.Round, PhaseSince: e.PhaseSince.UTC()}
		if e.PayoutTx != (twophase.Hash{}) {
			se.PayoutTx = e.PayoutTx.Hex()
		}
		if r := e.Refusal; r != nil {
			se.Refusal, se.Refund = string(r.Reason), fmt.Sprintf("%d/%d signatures", len(r.Sigs), st.Group.Quorum)
			if r.Certified {
				se.Refund = "certified"
			}
		}
		// Done events (paid, or refused with their certificate) are
		// listed by the latest only.
		if e.Phase == twophase.PhaseCompleted || (e.Refusal != nil && e.Refusal.Certified) {
			completed = append(completed, se)
			continue
		}
		doc.Events = append(doc.Events, se)
	}
	slices.SortFunc(completed, func(a, b statusEvent) int { return b.PhaseSince.Compare(a.PhaseSince) })
	doc.Events = append(doc.Events, completed[:min(len(completed), recentCompleted)]...)
	for _, c := range st.Certificates {
		ev := events[c.Lock.EventID]
		sc := statusCertificate{Event: c.Lock.EventID.Hex(), Stream: ev.Stream, Nonce: ev.Nonce, Epoch: c.Epoch, Round: c.Lock.Round,
			Anchor: c.Lock.Anchor, TemplateHash: c.Lock.TemplateHash.Hex(), Outpoints: len(c.Lock.Outpoints)}
		for _, s := range c.Signers {
			sc.Signers = append(sc.Signers, string(s))
		}
		doc.Certificates = append(doc.Certificates, sc)
	}
	for _, r := range st.Reserved {
		doc.Reserved = append(doc.Reserved, statusReservation{Outpoint: r.Outpoint.String(), Event: r.EventID.Hex(), Round: r.Round,
			TemplateHash: r.TemplateHash.Hex(), Anchor: r.Anchor})
	}
	for _, s := range st.Streams {
		doc.Streams = append(doc.Streams, statusStream{Stream: s.Stream, Next: s.Next, Pending: s.Pending, Blocked: s.Blocked,
			BlockedSince: timePtr(s.BlockedSince)})
	}
	slices.SortFunc(doc.Streams, func(a, b statusStream) int { return strings.Compare(a.Stream, b.Stream) })
	for _, p := range st.Peers {
		sp := statusPeer{ID: string(p.ID), Session: p.Session, LastContact: timePtr(p.LastContact)}
		for _, l := range links {
			if l.ID == p.ID {
				up := l.Connected
				sp.Connected, sp.Since, sp.LastError = &up, timePtr(l.Since), l.LastError
			}
		}
		doc.Peers = append(doc.Peers, sp)
	}
	return doc
}

// status is the running signer's document.
func (p *signerProcess) status(now time.Time) signerStatusDoc {
	return newStatusDoc(p.signer.Status(), true, now, p.mesh.Peers(), p.nodeStates())
}

var signerStatusFlags struct {
	config string
	json   bool
}

var signerStatusCmd = &cobra.Command{
	Use:   "status --config FILE [--json]",
	Short: "The signer's group profile, events by phase, lock certificates and reserved outpoints, streams and their holes, peers and their last contact",
	Long: `status asks the running signer (GET /status on its config's http address) and
prints its group's profile (quorum, and f for Profile B), its events by
phase (every event not completed, and the latest completed ones), in
Profile B the lock certificates its open events hold and the outpoints
they reserve, its streams (the next nonce, and a hole that blocks the
stream), its peers (link, last contact, session) and whether its Kaspa and
EVM nodes answer. When the signer is not running, status replays its log
read-only and prints what the log says (no links, no nodes).`,
	Args: cobra.NoArgs,
	RunE: func(cmd *cobra.Command, _ []string) error {
		if err := signerDataFlagsUnset(cmd); err != nil {
			return err
		}
		setup, err := loadSignerConfig(signerStatusFlags.config)
		if err != nil {
			return err
		}
		doc, err := signerStatus(cmd.Context(), setup)
		if err != nil {
			return err
		}
		if signerStatusFlags.json {
			enc := json.NewEncoder(cmd.OutOrStdout())
			enc.SetIndent("", "  ")
			return enc.Encode(doc)
		}
		printSignerStatus(cmd.OutOrStdout(), setup.logDir(), doc)
		return nil
	},
}

func init() {
	signerStatusCmd.Flags().StringVar(&signerStatusFlags.config, "config", "", "the signer's config file (JSON)")
	signerStatusCmd.Flags().BoolVar(&signerStatusFlags.json, "json", false, "print the status as JSON (GET /status's document)")
	_ = signerStatusCmd.MarkFlagRequired("config")
	signerCmd.AddCommand(signerStatusCmd)
}

// signerStatus asks the running signer, or replays a stopped one's log.
func signerStatus(ctx context.Context, s *signerSetup) (signerStatusDoc, error) {
	if s.net.HTTP != "" {
		doc, err := fetchSignerStatus(ctx, s.net.HTTP)
		if err == nil {
			return doc, nil
		}
		slog.Debug("running signer did not answer; reading its log", "http", s.net.HTTP, "err", err)
	}
	return replayedSignerStatus(ctx, s)
}

func fetchSignerStatus(ctx context.Context, addr string) (signerStatusDoc, error) {
	var doc signerStatusDoc
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/status", nil)
	if err != nil {
		return doc, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return doc, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return doc, fmt.Errorf("GET /status: %s", resp.Status)
	}
	err = json.NewDecoder(io.LimitReader(resp.Body, 64<<20)).Decode(&doc)
	return doc, err
}

// replayedSignerStatus reads a stopped signer's log without locking or
// changing it.
func replayedSignerStatus(ctx context.Context, s *signerSetup) (signerStatusDoc, error) {
	dir := s.logDir()
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		return signerStatusDoc{}, &noDataError{what: "signer log in", path: dir, run: "the signer " + string(s.protocol.Self), err: err}
	}
	lg, err := embeddedlog.OpenReadOnly(dir, embeddedlog.WithContext(ctx))
	if err != nil {
		return signerStatusDoc{}, fmt.Errorf("open the signer's log %s: %w", dir, err)
	}
	defer lg.Close()
	st, err := twophase.NewState(s.protocol)
	if err != nil {
		return signerStatusDoc{}, err
	}
	if _, err := signing.Replay(ctx, lg, st.Apply); err != nil {
		return signerStatusDoc{}, fmt.Errorf("replay the signer's log %s: %w", dir, err)
	}
	return newStatusDoc(signing.StatusOf(s.protocol.Self, st), false, time.Now(), nil, nil), nil
}

// printSignerStatus writes the document for people.
func printSignerStatus(w io.Writer, logDir string, d signerStatusDoc) {
	since := func(t time.Time) string {
		if t.IsZero() {
			return "-" // an event waiting its turn has not entered a phase yet
		}
		return d.At.Sub(t).Round(100 * time.Millisecond).String()
	}
	if d.Running {
		fmt.Fprintf(w, "signer %s: running, session %d\n", d.Self, d.Session)
	} else {
		fmt.Fprintf(w, "signer %s: not running (read from its log %s), session %d\n", d.Self, logDir, d.Session)
	}
	if g := d.Group; g.Profile != "" { // a signer of an earlier version does not say
		line := fmt.Sprintf("group: Profile %s, %d members, quorum %d", strings.ToUpper(g.Profile), g.Members, g.Quorum)
		if g.Profile == string(twophase.ProfileB) {
			line += fmt.Sprintf(", tolerates f = %d Byzantine", g.Faults)
		}
		fmt.Fprintln(w, line)
	}
	phases := make([]string, 0, len(d.Phases))
	events := 0
	for p, n := range d.Phases {
		phases = append(phases, fmt.Sprintf("%d %s", n, p))
		events += n
	}
	slices.Sort(phases)
	fmt.Fprintf(w, "events: %d", events)
	if len(phases) > 0 {
		fmt.Fprintf(w, " phases: %s", strings.Join(phases, ", "))
	}
	fmt.Fprintln(w)
	if len(d.Events) > 0 {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  EVENT\tSTREAM\tNONCE\tPHASE\tEPOCH/ROUND\tIN PHASE FOR\tPAYOUT TX")
		for _, e := range d.Events {
			phase := e.Phase
			if e.Refusal != "" {
				phase += " (" + e.Refusal + ", refund " + e.Refund + ")"
			}
			fmt.Fprintf(tw, "  %s\t%s\t%d\t%s\t%d/%d\t%s\t%s\n", shortHex(e.ID), e.Stream, e.Nonce, phase, e.Epoch, e.Round,
				since(e.PhaseSince), shortHex(e.PayoutTx))
		}
		tw.Flush()
	}
	printLocks(w, d)
	fmt.Fprintln(w, "streams:")
	for _, s := range d.Streams {
		line := fmt.Sprintf("  %s  next nonce %d, %d pending", s.Stream, s.Next, s.Pending)
		if s.Blocked {
			line += fmt.Sprintf(", BLOCKED: nonce %d not requested", s.Next)
			if s.BlockedSince != nil {
				line += " for " + since(*s.BlockedSince)
			}
		}
		fmt.Fprintln(w, line)
	}
	fmt.Fprintln(w, "peers:")
	for _, p := range d.Peers {
		line := "  " + p.ID
		switch {
		case p.Connected == nil:
		case *p.Connected:
			line += "  connected"
			if p.Since != nil {
				line += " for " + since(*p.Since)
			}
		default:
			line += "  not connected"
			if p.LastError != "" {
				line += " (" + p.LastError + ")"
			}
		}
		if p.LastContact != nil {
			line += fmt.Sprintf(", last heard %s ago, session %d", since(*p.LastContact), p.Session)
		} else {
			line += ", never heard"
		}
		fmt.Fprintln(w, line)
	}
	for _, n := range d.Nodes {
		fmt.Fprintln(w, nodeLine(n, since))
	}
}

// printLocks writes Profile B's certificates and reserved outpoints.
func printLocks(w io.Writer, d signerStatusDoc) {
	if d.Group.Profile != string(twophase.ProfileB) {
		return
	}
	fmt.Fprintf(w, "lock certificates held: %d\n", len(d.Certificates))
	if len(d.Certificates) > 0 {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  EVENT\tSTREAM\tNONCE\tEPOCH/ROUND\tANCHOR\tTEMPLATE\tSIGNERS\tOUTPOINTS")
		for _, c := range d.Certificates {
			fmt.Fprintf(tw, "  %s\t%s\t%d\t%d/%d\t%d\t%s\t%s\t%d\n", shortHex(c.Event), c.Stream, c.Nonce, c.Epoch, c.Round, c.Anchor,
				shortHex(c.TemplateHash), strings.Join(c.Signers, ","), c.Outpoints)
		}
		tw.Flush()
	}
	fmt.Fprintf(w, "reserved outpoints: %d\n", len(d.Reserved))
	if len(d.Reserved) > 0 {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  OUTPOINT\tEVENT\tROUND\tANCHOR")
		for _, r := range d.Reserved {
			fmt.Fprintf(tw, "  %s\t%s\t%d\t%d\n", r.Outpoint, shortHex(r.Event), r.Round, r.Anchor)
		}
		tw.Flush()
	}
}

// shortHex keeps the first 10 characters of a 0x-hex id, enough to tell
// events apart in a table.
func shortHex(h string) string {
	if len(h) > 12 {
		return h[:12] + "…"
	}
	return h
}

// nodeLine is one node's state for people: its name and address, and
// while it is not up, for how long and why.
func nodeLine(n statusNode, since func(time.Time) string) string {
	line := n.Name
	if n.Address != "" {
		line += " " + n.Address
	}
	if n.Up {
		return line + ": up"
	}
	line += ": DOWN"
	if n.Since != nil {
		line += " for " + since(*n.Since)
	}
	if n.Error != "" {
		line += " (" + n.Error + ")"
	}
	return line + "; the signer signs nothing until it answers"
}
