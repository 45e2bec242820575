package handlers

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/bridgelog/bridgelog/adapters/embeddedlog"
	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/topics"
)

// refusalFixture is a 2-of-3 group and a certificate of one burn.
type refusalFixture struct {
	group RefusalGroup
	privs map[string]ed25519.PrivateKey
	token domain.Address
}

func newRefusalFixture() refusalFixture {
	f := refusalFixture{group: RefusalGroup{ID: "0xgroup", Keys: map[string]ed25519.PublicKey{}, Quorum: 2},
		privs: map[string]ed25519.PrivateKey{}, token: domain.Address{0x70}}
	for _, id := range []string{"s1", "s2", "s3"} {
		seed := sha256.Sum256([]byte("refund-test/" + id))
		k := ed25519.NewKeyFromSeed(seed[:])
		f.privs[id], f.group.Keys[id] = k, k.Public().(ed25519.PublicKey)
	}
	return f
}

// cert is a certificate of burn i signed by members.
func (f refusalFixture) cert(i byte, members ...string) domain.RefusalCertificate {
	c := domain.RefusalCertificate{GroupID: f.group.ID, Burn: domain.LogRef{ChainID: 1337, TxHash: domain.Hash32{i}, LogIndex: 1},
		Token: f.token, Burner: domain.Address{0xbb, i}, Amount: domain.AmountFromUint64(uint64(i) * 1e17), Reason: "not_an_address"}
	return f.sign(c, members...)
}

func (f refusalFixture) sign(c domain.RefusalCertificate, members ...string) domain.RefusalCertificate {
	c.Signatures = nil
	for _, m := range members {
		c.Signatures = append(c.Signatures, domain.MemberSignature{Member: m, Signature: ed25519.Sign(f.privs[m], c.SigningBytes())})
	}
	return c
}

// staticSource hands over the same certificates every time.
type staticSource []domain.RefusalCertificate

func (s staticSource) Certificates(context.Context) ([]LearnedCertificate, error) {
	var out []LearnedCertificate
	for _, c := range s {
		out = append(out, LearnedCertificate{Certificate: c, Source: "test"})
	}
	return out, nil
}

// countingRefundMetrics counts refusals by reason.
type countingRefundMetrics struct{ refused map[string]int }

func (m *countingRefundMetrics) RefundCompleted(uint64) {}
func (m *countingRefundMetrics) RefundFailed()          {}
func (m *countingRefundMetrics) CertificateRefused(reason string) {
	m.refused[reason]++
}

// TestRefundIntakeRefusesBadCertificates: a certificate of another group,
// one without a quorum of valid signatures (a member twice, an unknown
// member, a signature over another amount), one of another token, each
// gets refund.certificate_refused with its reason and a metric, and no
// refund.requested; a good one is requested once however often it is
// handed over.
func TestRefundIntakeRefusesBadCertificates(t *testing.T) {
	lg, err := embeddedlog.Open(t.TempDir(), embeddedlog.WithLogger(quietLogger))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lg.Close() })
	f := newRefusalFixture()
	other := f.cert(2, "s1", "s2")
	other.GroupID = "0xother"
	other = f.sign(other, "s1", "s2")
	tampered := f.cert(3, "s1", "s2")
	tampered.Amount = domain.AmountFromUint64(9e18) // signed over 3e17
	foreign := f.cert(6, "s1", "s2")
	foreign.Token = domain.Address{0x71}
	foreign = f.sign(foreign, "s1", "s2")
	unknown := f.cert(5, "s1")
	unknown.Signatures = append(unknown.Signatures, domain.MemberSignature{Member: "s9", Signature: unknown.Signatures[0].Signature})
	good := f.cert(1, "s1", "s3")
	// The same verdict on burn 1 by another quorum: a copy, not a
	// conflicting second request.
	goodToo := f.cert(1, "s2", "s3")
	m := &countingRefundMetrics{refused: map[string]int{}}
	in := &RefundIntake{Group: f.group, Token: f.token, Appender: &Appender{Log: lg, Catalog: topics.DefaultCatalog()},
		Metrics: m, Logger: quietLogger,
		Sources: []CertificateSource{staticSource{good, other, f.cert(4, "s2", "s2"), tampered, unknown, foreign, good, goodToo}}}
	ctx := context.Background()
	for range 2 {
		if _, _, err := in.Poll(ctx); err != nil {
			t.Fatal(err)
		}
	}
	// A restarted relay is handed them again: the projection knows every
	// verdict, so nothing is appended again.
	in2 := &RefundIntake{Group: f.group, Token: f.token, Appender: in.Appender, Logger: quietLogger, Sources: in.Sources,
		Known: logVerdicts{t, lg}}
	if requested, refused, err := in2.Poll(ctx); err != nil || requested+refused != 0 {
		t.Fatalf("restarted intake requested %d refused %d (%v), want nothing appended", requested, refused, err)
	}
	requested := sourceKeyCounts(t, lg, domain.TypeRefundRequested)
	if len(requested) != 1 || requested[good.Burn.WithdrawalToKaspaID()+"/refund/requested"] != 1 {
		t.Fatalf("refund.requested %v, want burn 1's once", requested)
	}
	refused := map[string]string{}
	for _, e := range events(t, lg, topics.TopicBridge) {
		if e.Type == domain.TypeRefundCertificateRefused {
			var r domain.RefundCertificateRefused
			if err := topics.DecodePayload(e.Payload, &r); err != nil {
				t.Fatal(err)
			}
			refused[r.Certificate.Burn.TxHash.Hex()[:4]] = r.Reason
		}
	}
	want := map[string]string{"0x02": "group:", "0x03": "quorum:", "0x04": "quorum:", "0x05": "quorum:", "0x06": "token:"}
	for burn, prefix := range want {
		if !strings.HasPrefix(refused[burn], prefix) {
			t.Errorf("burn %s refused with %q, want %q…", burn, refused[burn], prefix)
		}
	}
	if len(refused) != len(want) {
		t.Errorf("refused %v, want %d certificates", refused, len(want))
	}
	if m.refused["group"] != 1 || m.refused["quorum"] != 3 || m.refused["token"] != 1 {
		t.Errorf("refusal metrics %v, want group 1, quorum 3, token 1 (each certificate once per run)", m.refused)
	}
	if err := in.Accept(ctx, tampered, "test"); !errors.Is(err, ErrCertificateRefused) || !errors.Is(err, domain.ErrCertificateQuorum) {
		t.Fatalf("Accept(tampered) = %v, want ErrCertificateRefused wrapping ErrCertificateQuorum", err)
	}
}

// TestHTTPRefusalsAndInbox: the poller asks GET /refusals of each endpoint
// and takes the JSON array; an endpoint that fails is reported and the
// others still count; an inbox file is taken once and removed, a file that
// is not a certificate is set aside as .bad.
func TestHTTPRefusalsAndInbox(t *testing.T) {
	lg, err := embeddedlog.Open(t.TempDir(), embeddedlog.WithLogger(quietLogger))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lg.Close() })
	f := newRefusalFixture()
	var asked atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || r.URL.Path != "/refusals" {
			http.NotFound(w, r)
			return
		}
		asked.Add(1)
		_ = json.NewEncoder(w).Encode([]domain.RefusalCertificate{f.cert(1, "s1", "s2"), f.cert(2, "s2", "s3")})
	}))
	t.Cleanup(srv.Close)
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "not yet", http.StatusServiceUnavailable)
	}))
	t.Cleanup(down.Close)
	inbox := t.TempDir()
	b, _ := json.Marshal(f.cert(3, "s1", "s3"))
	if err := os.WriteFile(filepath.Join(inbox, "c3.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(inbox, "junk.json"), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	in := &RefundIntake{Group: f.group, Token: f.token, Appender: &Appender{Log: lg, Catalog: topics.DefaultCatalog()}, Logger: quietLogger,
		Sources: []CertificateSource{HTTPRefusals{Base: srv.URL}, HTTPRefusals{Base: down.URL + "/"}, InboxDir{Dir: inbox}}}
	requested, refused, err := in.Poll(context.Background())
	if !errors.Is(err, ErrRefusalSource) || !strings.Contains(err.Error(), "503") {
		t.Fatalf("poll error %v, want the failing endpoint's status and the junk file", err)
	}
	if requested != 3 || refused != 0 || asked.Load() != 1 {
		t.Fatalf("requested %d refused %d asked %d, want 3, 0, 1", requested, refused, asked.Load())
	}
	left, _ := filepath.Glob(filepath.Join(inbox, "*"))
	if len(left) != 1 || filepath.Base(left[0]) != "junk.bad" {
		t.Fatalf("inbox holds %v, want only junk.bad", left)
	}
	if n := len(sourceKeyCounts(t, lg, domain.TypeRefundRequested)); n != 3 {
		t.Fatalf("%d refunds requested, want 3", n)
	}
}

// logVerdicts is the refunds projection's RefundKnown, read off the log.
type logVerdicts struct {
	t  *testing.T
	lg topics.Log
}

func (v logVerdicts) RefundKnown(_ context.Context, key string) (bool, error) {
	for _, e := range events(v.t, v.lg, topics.TopicBridge) {
		var c domain.RefusalCertificate
		switch e.Type {
		case domain.TypeRefundRequested:
			var r domain.RefundRequested
			if err := topics.DecodePayload(e.Payload, &r); err != nil {
				return false, err
			}
			c = r.Certificate
			if domain.RefundVerdictKey(c, false) == key {
				return true, nil
			}
		case domain.TypeRefundCertificateRefused:
			var r domain.RefundCertificateRefused
			if err := topics.DecodePayload(e.Payload, &r); err != nil {
				return false, err
			}
			if domain.RefundVerdictKey(r.Certificate, true) == key {
				return true, nil
			}
		}
	}
	return false, nil
}
