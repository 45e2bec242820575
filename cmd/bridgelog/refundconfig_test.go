package main

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/handlers"
)

// TestDeployRefusesUnpayableKaspaRules: contracts deploy refuses, before
// dialling anything, a prefix that names no Kaspa network and a minimum
// under the least payout a Kaspa node relays.
func TestDeployRefusesUnpayableKaspaRules(t *testing.T) {
	base := deployOptions{rpc: "http://127.0.0.1:1", from: "0x1111111111111111111111111111111111111111", external: "http://127.0.0.1:1",
		out: filepath.Join(t.TempDir(), "relay.json"), kaspaPrefix: "kaspa", kaspaMinSompi: domain.MinKaspaPayoutSompi}
	for name, c := range map[string]struct {
		tweak func(*deployOptions)
		want  string
	}{
		"another prefix": {func(o *deployOptions) { o.kaspaPrefix = "kaspa:" }, `--kaspa-prefix "kaspa:"`},
		"empty prefix":   {func(o *deployOptions) { o.kaspaPrefix = "" }, `--kaspa-prefix ""`},
		"dust minimum":   {func(o *deployOptions) { o.kaspaMinSompi = 1_000_000 }, "--kaspa-min-sompi 1000000"},
	} {
		o := base
		c.tweak(&o)
		err := runDeploy(context.Background(), o, io.Discard, quietLogger())
		if !errors.Is(err, ErrDeploy) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want ErrDeploy naming %s", name, err, c.want)
		}
	}
}

// TestRelaySignersSection: the signers section derives the group's id,
// members' identity keys and quorum from a member's config (public keys
// only: no key file is read); a missing group or an endpoint that is not
// http://host:port is refused.
func TestRelaySignersSection(t *testing.T) {
	f := newSignerFixture(t, 3, 2)
	path := f.write(t)
	s := &relaySigners{Group: filepath.Base(path), Endpoints: []string{"http://127.0.0.1:8081"}}
	g, err := s.refusalGroup(filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	setup := f.load(t)
	if g.ID != setup.protocol.Group.ID().Hex() || g.Quorum != 2 || len(g.Keys) != 3 {
		t.Fatalf("group %+v, want id %s, quorum 2, 3 keys", g, setup.protocol.Group.ID().Hex())
	}
	if src, err := s.sources(""); err != nil || len(src) != 1 {
		t.Fatalf("sources %v (%v), want the one endpoint", src, err)
	}
	for _, bad := range []*relaySigners{{}, {Group: "missing.json"}} {
		if _, err := bad.refusalGroup(t.TempDir()); !errors.Is(err, ErrRefundConfig) {
			t.Errorf("group %q: %v, want ErrRefundConfig", bad.Group, err)
		}
	}
	for _, e := range []string{"127.0.0.1:8081", "ftp://h:1", "http://"} {
		if _, err := (&relaySigners{Endpoints: []string{e}}).sources(""); !errors.Is(err, ErrRefundConfig) {
			t.Errorf("endpoint %q: %v, want ErrRefundConfig", e, err)
		}
	}
}

// TestAwaitedSignerEndpoint: a signers endpoint held back is not asked
// (and fails nothing) until up says its signers serve; then it is asked
// and its errors count again.
func TestAwaitedSignerEndpoint(t *testing.T) {
	var asked atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		asked.Add(1)
		w.Write([]byte("[]"))
	}))
	defer srv.Close()
	var up atomic.Bool
	src := awaitedSource{up: up.Load, CertificateSource: handlers.HTTPRefusals{Base: srv.URL}}
	if certs, err := src.Certificates(context.Background()); err != nil || len(certs) != 0 || asked.Load() != 0 {
		t.Fatalf("before up: %v, %v, %d requests", certs, err, asked.Load())
	}
	up.Store(true)
	if certs, err := src.Certificates(context.Background()); err != nil || len(certs) != 0 || asked.Load() != 1 {
		t.Fatalf("once up: %v, %v, %d requests", certs, err, asked.Load())
	}
	srv.Close()
	if _, err := src.Certificates(context.Background()); !errors.Is(err, handlers.ErrRefusalSource) {
		t.Fatalf("a signer gone once up: %v, want ErrRefusalSource", err)
	}
}
