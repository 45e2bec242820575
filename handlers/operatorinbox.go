package handlers

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bridgelog/bridgelog/domain"
)

// Kinds of an operator's request to the relay.
const (
	RequestPause   = "pause"
	RequestResume  = "resume"
	RequestHold    = "hold"
	RequestRelease = "release"
)

// OperatorRequest is an operator's pause, resume, hold or release, as
// `bridgelog pause|resume|governor` appends it, or leaves it in a running
// relay's inbox (one JSON file each) when the relay holds the log. The
// command checked the credential; the relay checks the request again on
// its own state before recording it.
type OperatorRequest struct {
	Kind    string                `json:"kind"`
	Deposit string                `json:"deposit,omitempty"` // hold and release: the deposit id
	Action  domain.OperatorAction `json:"action"`
}

// DepositGovernance reads what an operator's hold or release is checked
// on (projections.BridgeReader).
type DepositGovernance interface {
	DepositGovernance(ctx context.Context, ref domain.LogRef) (domain.Status, *domain.MintHold, error)
}

// ParseDepositID reads a deposit id, with or without its "deposit:" prefix.
func ParseDepositID(s string) (domain.LogRef, error) {
	return domain.ParseLogRef(strings.TrimPrefix(s, "deposit:"))
}

// Event checks the request and returns the event that records it. Every
// refusal wraps [ErrOperatorRequest].
func (r OperatorRequest) Event(ctx context.Context, deposits DepositGovernance) (domain.Event, error) {
	if err := r.Action.Check(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrOperatorRequest, err)
	}
	switch r.Kind {
	case RequestPause:
		return domain.RelayPaused{OperatorAction: r.Action}, nil
	case RequestResume:
		return domain.RelayResumed{OperatorAction: r.Action}, nil
	case RequestHold, RequestRelease:
	default:
		return nil, fmt.Errorf("%w: kind %q: want pause, resume, hold or release", ErrOperatorRequest, r.Kind)
	}
	ref, err := ParseDepositID(r.Deposit)
	if err != nil {
		return nil, fmt.Errorf("%w: deposit %q: %w", ErrOperatorRequest, r.Deposit, err)
	}
	status, hold, err := deposits.DepositGovernance(ctx, ref)
	if err != nil {
		return nil, err
	}
	if r.Kind == RequestHold {
		if err := domain.CheckHold(status, hold); err != nil {
			return nil, fmt.Errorf("%w: hold of %s: %w", ErrOperatorRequest, ref.DepositID(), err)
		}
		return domain.MintHeld{Ref: ref, Reason: domain.HoldOperator, Action: r.Action}, nil
	}
	if err := domain.CheckRelease(status, hold); err != nil {
		return nil, fmt.Errorf("%w: release of %s: %w", ErrOperatorRequest, ref.DepositID(), err)
	}
	return domain.MintReleased{Ref: ref, Reason: domain.ReleaseOperator, Action: r.Action}, nil
}

// maxRequestBytes bounds an inbox file: a request is a few hundred bytes.
const maxRequestBytes = 4096

// ReadOperatorRequest decodes one request strictly, at most
// maxRequestBytes.
func ReadOperatorRequest(rd io.Reader) (OperatorRequest, error) {
	var r OperatorRequest
	b, err := io.ReadAll(io.LimitReader(rd, maxRequestBytes+1))
	if err != nil {
		return r, err
	}
	if len(b) > maxRequestBytes {
		return r, fmt.Errorf("%w: over %d bytes", ErrOperatorRequest, maxRequestBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return r, fmt.Errorf("%w: not a request: %w", ErrOperatorRequest, err)
	}
	return r, nil
}

// OperatorInbox takes the requests a command left for the running relay
// (DATA/operator/inbox): in the order of their names, each checked,
// recorded and removed; one that is refused is renamed *.bad with the
// reason logged, and the others go on.
type OperatorInbox struct {
	Dir      string
	Appender *Appender
	Deposits DepositGovernance
	// Projector, if set, is caught up after each request, so a release
	// right after a hold in the same inbox is checked on the hold.
	Projector Projector
	Logger    *slog.Logger
}

// Poll records what the inbox holds and returns how many it recorded.
func (in *OperatorInbox) Poll(ctx context.Context) (int, error) {
	names, err := filepath.Glob(filepath.Join(in.Dir, "*.json"))
	if err != nil {
		return 0, err
	}
	slices.Sort(names)
	n := 0
	for _, name := range names {
		ev, err := in.take(ctx, name)
		if errors.Is(err, ErrOperatorRequest) || errors.Is(err, os.ErrNotExist) {
			loggerOr(in.Logger).Error("operator request refused", "file", filepath.Base(name), "error", err)
			if rerr := os.Rename(name, strings.TrimSuffix(name, ".json")+".bad"); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
				return n, rerr
			}
			continue
		}
		if err != nil {
			return n, err // the store or the log: try again next round
		}
		if _, err := in.Appender.Append(ctx, Cause{}, ev); err != nil {
			return n, err
		}
		if err := os.Remove(name); err != nil {
			return n, err
		}
		n++
		if in.Projector != nil {
			if err := in.Projector.CatchUp(ctx); err != nil {
				return n, err
			}
		}
		loggerOr(in.Logger).Info("operator request recorded", "event_type", ev.EventType(), "event_source", ev.SourceKey())
	}
	return n, nil
}

func (in *OperatorInbox) take(ctx context.Context, name string) (domain.Event, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r, err := ReadOperatorRequest(f)
	if err != nil {
		return nil, err
	}
	return r.Event(ctx, in.Deposits)
}
