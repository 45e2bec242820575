package handlers

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/bridgelog/bridgelog/domain"
)

// RefusalGroup is the signing group whose refusal certificates the relay
// acts on: its id, its members' identity keys by member id, its quorum.
type RefusalGroup struct {
	ID     string
	Keys   map[string]ed25519.PublicKey
	Quorum int
}

// ErrCertificateRefused wraps every reason a certificate is not acted on
// (domain.ErrCertificateGroup, ErrCertificateQuorum, ErrCertificateToken,
// ErrCertificateAmount).
var ErrCertificateRefused = errors.New("refusal certificate refused")

// ErrRefusalSource: a certificate source that could not be read (an
// endpoint down, an answer that is not a JSON array of certificates).
var ErrRefusalSource = errors.New("refusal certificate source")

// LearnedCertificate is a certificate as a source hands it over.
type LearnedCertificate struct {
	Certificate domain.RefusalCertificate
	Source      string
	// Done, if set, is called once the certificate is on the log
	// (requested or refused): an inbox file is removed then.
	Done func() error
}

// CertificateSource hands over the refusal certificates it knows.
type CertificateSource interface {
	Certificates(ctx context.Context) ([]LearnedCertificate, error)
}

// RefundIntake verifies every certificate its sources hand over against
// the group and the relay's token: a good one becomes refund.requested
// (keyed by the burn: copies are duplicates), a bad one
// refund.certificate_refused with the reason, a metric and a warning, and
// nothing is sent for it.
type RefundIntake struct {
	Group    RefusalGroup
	Token    domain.Address
	Sources  []CertificateSource
	Appender *Appender
	Metrics  RefundMetrics
	Logger   *slog.Logger
	// Known, if set, says whether a verdict is on the log already (the
	// refunds projection, caught up): a burn already requested, or the
	// same certificate already refused, is not appended again. Another
	// copy of a requested burn's certificate (another signature set,
	// another endpoint) would otherwise be a conflicting duplicate.
	Known RefundLedger

	seen map[string]bool // verdict keys appended this run
}

// RefundLedger is what the intake asks the refunds projection.
type RefundLedger interface {
	RefundKnown(ctx context.Context, key string) (bool, error)
}

// verify is the verdict on c: nil, or why it is refused.
func (in *RefundIntake) verify(c domain.RefusalCertificate) error {
	if err := domain.VerifyRefusal(c, in.Group.ID, in.Group.Keys, in.Group.Quorum); err != nil {
		return err
	}
	return domain.CheckRefundable(c, in.Token)
}

// known reports whether c's verdict was appended, this run or before.
func (in *RefundIntake) known(ctx context.Context, c domain.RefusalCertificate) (bool, error) {
	key := domain.RefundVerdictKey(c, in.verify(c) != nil)
	if in.seen[key] {
		return true, nil
	}
	if in.Known == nil {
		return false, nil
	}
	return in.Known.RefundKnown(ctx, key)
}

// Accept verifies c and appends what the relay makes of it. The error
// wraps ErrCertificateRefused for a certificate refused (its event is
// appended), anything else for a failure to append.
func (in *RefundIntake) Accept(ctx context.Context, c domain.RefusalCertificate, source string) error {
	if in.seen == nil {
		in.seen = map[string]bool{}
	}
	if err := in.verify(c); err != nil {
		reason := refusalReason(err)
		ev := domain.RefundCertificateRefused{Certificate: c, Source: source, Reason: reason + ": " + err.Error()}
		if _, aerr := in.Appender.Append(ctx, Cause{CorrelationID: ev.AggregateID()}, ev); aerr != nil {
			return aerr
		}
		in.seen[domain.RefundVerdictKey(c, true)] = true
		refundMetricsOr(in.Metrics).CertificateRefused(reason)
		loggerOr(in.Logger).Warn("refusal certificate refused; nothing is refunded", "burn_id", ev.AggregateID(),
			"source", source, "reason", reason, "error", err)
		return fmt.Errorf("%w: %w", ErrCertificateRefused, err)
	}
	ev := domain.RefundRequested{Certificate: c, Source: source}
	if _, err := in.Appender.Append(ctx, Cause{CorrelationID: ev.AggregateID()}, ev); err != nil {
		return err
	}
	in.seen[domain.RefundVerdictKey(c, false)] = true
	loggerOr(in.Logger).Info("refund requested", "burn_id", ev.AggregateID(), "source", source, "burner", c.Burner.Hex(),
		"amount", c.Amount.String(), "reason", c.Reason)
	return nil
}

// refusalReason is the short reason of a refusal: the metric's label.
func refusalReason(err error) string {
	switch {
	case errors.Is(err, domain.ErrCertificateGroup):
		return "group"
	case errors.Is(err, domain.ErrCertificateQuorum):
		return "quorum"
	case errors.Is(err, domain.ErrCertificateToken):
		return "token"
	case errors.Is(err, domain.ErrCertificateAmount):
		return "amount"
	}
	return "invalid"
}

// Poll reads every source once and accepts each certificate not seen yet
// in this run; it returns how many it requested and refused. A source
// that fails is reported after the others had their turn.
func (in *RefundIntake) Poll(ctx context.Context) (requested, refused int, err error) {
	var errs []error
	for _, s := range in.Sources {
		certs, serr := s.Certificates(ctx)
		if serr != nil {
			errs = append(errs, serr)
		}
		for _, lc := range certs {
			known, kerr := in.known(ctx, lc.Certificate)
			if kerr != nil {
				return requested, refused, kerr
			}
			if !known {
				aerr := in.Accept(ctx, lc.Certificate, lc.Source)
				switch {
				case errors.Is(aerr, ErrCertificateRefused):
					refused++
				case aerr != nil:
					return requested, refused, aerr
				default:
					requested++
				}
			}
			if lc.Done != nil {
				if err := lc.Done(); err != nil {
					errs = append(errs, err)
				}
			}
		}
	}
	return requested, refused, errors.Join(errs...)
}

// maxRefusalsBody bounds what an endpoint's answer may hold.
const maxRefusalsBody = 16 << 20

// HTTPRefusals reads a signer's GET /refusals: a JSON array of
// certificates. Base is the signer's http://host:port.
type HTTPRefusals struct {
	Base    string
	Client  *http.Client  // default http.DefaultClient
	Timeout time.Duration // of each request, default 5s
}

// Certificates asks the endpoint once, within Timeout.
func (h HTTPRefusals) Certificates(ctx context.Context) ([]LearnedCertificate, error) {
	to := h.Timeout
	if to <= 0 {
		to = 5 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, to)
	defer cancel()
	url := strings.TrimSuffix(h.Base, "/") + "/refusals"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrRefusalSource, url, err)
	}
	cl := h.Client
	if cl == nil {
		cl = http.DefaultClient
	}
	resp, err := cl.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrRefusalSource, url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%w: %s: %s", ErrRefusalSource, url, resp.Status)
	}
	var certs []domain.RefusalCertificate
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxRefusalsBody)).Decode(&certs); err != nil {
		return nil, fmt.Errorf("%w: %s: not a JSON array of refusal certificates: %w", ErrRefusalSource, url, err)
	}
	out := make([]LearnedCertificate, len(certs))
	for i, c := range certs {
		out[i] = LearnedCertificate{Certificate: c, Source: url}
	}
	return out, nil
}

// InboxDir is where `bridgelog refund --certificate` leaves a certificate
// for a running relay that holds the log: one JSON certificate a file
// (*.json), removed once it is on the log. A file that is not a
// certificate is renamed *.bad and reported.
type InboxDir struct {
	Dir string
}

// Certificates reads the inbox's files.
func (d InboxDir) Certificates(context.Context) ([]LearnedCertificate, error) {
	names, err := filepath.Glob(filepath.Join(d.Dir, "*.json"))
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrRefusalSource, d.Dir, err)
	}
	var out []LearnedCertificate
	var errs []error
	for _, name := range names {
		c, err := ReadCertificateFile(name)
		if err != nil {
			errs = append(errs, err)
			if rerr := os.Rename(name, strings.TrimSuffix(name, ".json")+".bad"); rerr != nil {
				errs = append(errs, rerr)
			}
			continue
		}
		out = append(out, LearnedCertificate{Certificate: c, Source: "file:" + filepath.Base(name),
			Done: func() error { return os.Remove(name) }})
	}
	return out, errors.Join(errs...)
}

// ReadCertificateFile reads one JSON refusal certificate.
func ReadCertificateFile(path string) (domain.RefusalCertificate, error) {
	var c domain.RefusalCertificate
	b, err := os.ReadFile(path)
	if err != nil {
		return c, fmt.Errorf("%w: %w", ErrRefusalSource, err)
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return c, fmt.Errorf("%w: %s is not a refusal certificate: %w", ErrRefusalSource, path, err)
	}
	return c, nil
}
