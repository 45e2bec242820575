package signermesh

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"time"

	"google.golang.org/grpc/credentials"
	grpcpeer "google.golang.org/grpc/peer"

	"github.com/bridgelog/bridgelog/domain/twophase"
)

// exporterLabel names the TLS exporter value the application handshake
// signs (RFC 8446 7.5): a proof made on one TLS session is no proof on
// another, so it cannot be relayed. Part of the protocol: never change it.
const exporterLabel = "EXPORTER-bridgelog-signermesh-handshake-v2"

// bindingBytes is the size of the exporter value.
const bindingBytes = 32

// memberCertificate is a self-signed certificate of the identity key and
// nothing else: no subject, no names, fixed serial and validity, so it
// says nothing a peer does not already find in the group. Nobody checks
// the signature or the dates; a peer checks the key against the group,
// and TLS 1.3's CertificateVerify proves the private half.
func memberCertificate(key ed25519.PrivateKey) (tls.Certificate, error) {
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		NotBefore:    time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC),
		NotAfter:     time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth, x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("signermesh: certificate of the identity key: %w", err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("signermesh: certificate of the identity key: %w", err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, nil
}

// keyError is a TLS peer certificate this member refused.
type keyError struct {
	reason Refusal
	member twophase.PeerID // the member whose key it carries, if any
	key    []byte          // the key it carries, if it is ed25519
	detail string
}

func (e *keyError) Error() string { return e.detail }

// keyCheck is what the certificate check of one TLS handshake found.
type keyCheck struct {
	member twophase.PeerID // set once the certificate carried an expected member's key
	err    *keyError
	// proven: the peer proved member's key (on the accepting side, TLS
	// asked for this member's certificate, which it does only once the
	// dialler's signature and Finished verified)
	proven bool
}

// certificateKey reads the ed25519 key of a peer's certificate chain: exactly
// one certificate, whose key alone counts.
func certificateKey(raw [][]byte) (ed25519.PublicKey, *keyError) {
	if len(raw) != 1 {
		return nil, &keyError{reason: RefusalTLSBadCertificate, detail: fmt.Sprintf("presented %d certificates, want 1", len(raw))}
	}
	cert, err := x509.ParseCertificate(raw[0])
	if err != nil {
		return nil, &keyError{reason: RefusalTLSBadCertificate, detail: fmt.Sprintf("presented a certificate that does not parse: %v", err)}
	}
	key, ok := cert.PublicKey.(ed25519.PublicKey)
	if !ok {
		return nil, &keyError{reason: RefusalTLSBadCertificate, detail: fmt.Sprintf("presented a %T key, not an ed25519 identity key", cert.PublicKey)}
	}
	return key, nil
}

// verifier checks a peer's certificate against the group: on the
// dialling side it must carry the key of the member dialled, on the
// accepting side the key of any other member.
func (m *Mesh) verifier(dialled *peer, found *keyCheck) func([][]byte, [][]*x509.Certificate) error {
	return func(raw [][]byte, _ [][]*x509.Certificate) error {
		key, kerr := certificateKey(raw)
		if kerr == nil {
			kerr = m.checkKey(key, dialled)
		}
		if kerr != nil {
			found.err = kerr
			return kerr
		}
		found.member = m.byKey[string(key)]
		return nil
	}
}

func (m *Mesh) checkKey(key ed25519.PublicKey, dialled *peer) *keyError {
	member, known := m.byKey[string(key)]
	switch {
	case !known:
		return &keyError{reason: RefusalTLSUnknownKey, key: key,
			detail: fmt.Sprintf("presented identity key %x…, which no member of the group has", key[:4])}
	case member == m.cfg.Self:
		return &keyError{reason: RefusalTLSUnknownKey, member: member, key: key,
			detail: fmt.Sprintf("presented this signer's own identity key (%s)", member)}
	case dialled != nil && member != dialled.id:
		return &keyError{reason: RefusalTLSUnknownKey, member: member, key: key,
			detail: fmt.Sprintf("presented the identity key of member %s", member)}
	}
	return nil
}

// acceptTLS is the TLS configuration of the accepting side, which plays
// TLS's client: in TLS 1.3 the server shows its certificate first and
// the client only once the server's proof and Finished verified. So the
// dialler proves its key first, and a process that cannot learns
// nothing about this member, not even its key. No server name is sent.
func (m *Mesh) acceptTLS(found *keyCheck) *tls.Config {
	return &tls.Config{
		MinVersion: tls.VersionTLS13, MaxVersion: tls.VersionTLS13,
		// no CA and no names: the key is checked against the group
		InsecureSkipVerify:    true,
		VerifyPeerCertificate: m.verifier(nil, found),
		GetClientCertificate: func(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
			found.proven = found.member != ""
			return &m.cert, nil
		},
	}
}

// dialTLS is the TLS configuration of the dialling side (TLS's server),
// which requires the certificate of the member it dialled. Sessions are
// never resumed: every connection proves both keys.
func (m *Mesh) dialTLS(dialled *peer, found *keyCheck) *tls.Config {
	return &tls.Config{
		MinVersion: tls.VersionTLS13, MaxVersion: tls.VersionTLS13,
		Certificates:           []tls.Certificate{m.cert},
		ClientAuth:             tls.RequireAnyClientCert,
		VerifyPeerCertificate:  m.verifier(dialled, found),
		SessionTicketsDisabled: true,
	}
}

// linkAuth is what the TLS handshake of a link's connection proved: the
// member whose identity key the peer holds, and the session's exporter
// value that the application handshake signs.
type linkAuth struct {
	credentials.CommonAuthInfo
	member  twophase.PeerID
	binding []byte
}

func (linkAuth) AuthType() string { return "bridgelog-signermesh-tls" }

// authFromContext is the linkAuth of a stream's connection.
func authFromContext(ctx context.Context) (linkAuth, bool) {
	p, ok := grpcpeer.FromContext(ctx)
	if !ok {
		return linkAuth{}, false
	}
	a, ok := p.AuthInfo.(linkAuth)
	return a, ok
}

func newLinkAuth(conn *tls.Conn, member twophase.PeerID) (linkAuth, error) {
	st := conn.ConnectionState()
	binding, err := st.ExportKeyingMaterial(exporterLabel, nil, bindingBytes)
	if err != nil {
		return linkAuth{}, fmt.Errorf("signermesh: TLS exporter: %w", err)
	}
	return linkAuth{CommonAuthInfo: credentials.CommonAuthInfo{SecurityLevel: credentials.PrivacyAndIntegrity},
		member: member, binding: binding}, nil
}

// meshCredentials are gRPC's transport credentials of one mesh: the
// accepting side's (dialled nil) or those of the link to one member.
type meshCredentials struct {
	m       *Mesh
	dialled *peer
}

func (c meshCredentials) Info() credentials.ProtocolInfo {
	return credentials.ProtocolInfo{SecurityProtocol: "tls", SecurityVersion: "1.3"}
}
func (c meshCredentials) Clone() credentials.TransportCredentials { return c }
func (c meshCredentials) OverrideServerName(string) error         { return nil }

// ServerHandshake runs TLS on a connection the listener accepted (see
// acceptTLS), within the handshake timeout. The connection counts as
// pending in the limiter until the dialler proved a member's key, and is
// closed at the handshake deadline unless a link on it authenticated.
func (c meshCredentials) ServerHandshake(raw net.Conn) (net.Conn, credentials.AuthInfo, error) {
	m := c.m
	deadline := time.Now().Add(m.cfg.HandshakeTimeout)
	_ = raw.SetDeadline(deadline) // gRPC clears it once HTTP/2 is set up
	ctx, cancel := context.WithDeadline(m.ctx, deadline)
	defer cancel()
	var found keyCheck
	conn := tls.Client(raw, m.acceptTLS(&found))
	first := make([]byte, 1)
	err := conn.HandshakeContext(ctx)
	if err == nil {
		// TLS's client is done once it sent its certificate; the
		// dialler's verdict on it is its first bytes (gRPC's preface) or
		// an alert
		_, err = io.ReadFull(conn, first)
	}
	if err != nil {
		_ = raw.Close()
		m.acceptTLSFailed(raw, found, err)
		return nil, nil, err
	}
	auth, err := newLinkAuth(conn, found.member)
	if err != nil {
		_ = raw.Close()
		return nil, nil, err
	}
	// A member proved its key: an outsider's flood can no longer evict
	// the connection while its link's handshake runs (whose failures are
	// that member's); the handshake deadline still holds.
	m.limits.proved(raw.RemoteAddr().String())
	return &readAheadConn{Conn: conn, ahead: first}, auth, nil
}

// readAheadConn gives back what was read ahead before the rest.
type readAheadConn struct {
	*tls.Conn
	ahead []byte
}

func (c *readAheadConn) Read(b []byte) (int, error) {
	if len(c.ahead) > 0 {
		n := copy(b, c.ahead)
		c.ahead = c.ahead[n:]
		return n, nil
	}
	return c.Conn.Read(b)
}

// ClientHandshake runs TLS on a connection to the member dialled (see
// dialTLS), within the handshake timeout.
func (c meshCredentials) ClientHandshake(ctx context.Context, _ string, raw net.Conn) (net.Conn, credentials.AuthInfo, error) {
	m, p := c.m, c.dialled
	ctx, cancel := context.WithTimeout(ctx, m.cfg.HandshakeTimeout)
	defer cancel()
	var found keyCheck
	conn := tls.Server(raw, m.dialTLS(p, &found))
	if err := conn.HandshakeContext(ctx); err != nil {
		_ = raw.Close()
		m.dialTLSFailed(p, found, err)
		return nil, nil, err
	}
	auth, err := newLinkAuth(conn, found.member)
	if err != nil {
		_ = raw.Close()
		return nil, nil, err
	}
	return conn, auth, nil
}

// acceptTLSFailed counts a TLS handshake the accepting side did not
// finish: by reason only while nobody proved a key; against the dialler
// once it proved its key (it then refused this member's certificate, or
// the connection broke). A connection the limiter cut was counted by the
// limiter.
func (m *Mesh) acceptTLSFailed(raw net.Conn, found keyCheck, err error) {
	if lc, ok := raw.(*limitedConn); ok && lc.cutByLimiter() {
		return
	}
	addr := raw.RemoteAddr().String()
	if found.proven {
		herr := &HandshakeError{Peer: found.member, Outcome: OutcomeFailed,
			Detail: fmt.Sprintf("TLS handshake with peer %s failed: %v", found.member, err)}
		if isRemoteAlert(err) {
			herr.Outcome, herr.Detail = OutcomeRefusedByPeer, fmt.Sprintf("peer %s refused this signer's TLS handshake: %v", found.member, err)
		}
		m.recordHandshakeFailure(herr, addr, "accepted")
		return
	}
	reason, detail := RefusalTLSFailed, err.Error()
	switch {
	case found.err != nil:
		reason, detail = found.err.reason, found.err.detail
	case isTimeout(err):
		reason = RefusalTLSTimeout
	case found.member != "":
		// it showed a member's key and did not prove it: its signature
		// failed, or it stopped
		reason, detail = RefusalTLSKeyNotProven, fmt.Sprintf("presented the identity key of %s and did not prove it: %v", found.member, err)
	}
	m.preAuthRefused(reason, addr, "err", detail)
}

// dialTLSFailed counts and logs a TLS handshake with the member dialled
// that failed: the dialling side blames the member it dialled, as it
// does for the rest of the handshake.
func (m *Mesh) dialTLSFailed(p *peer, found keyCheck, err error) {
	herr := &HandshakeError{Peer: p.id, Outcome: OutcomeFailed,
		Detail: fmt.Sprintf("TLS handshake with peer %s failed: %v", p.id, err)}
	switch {
	case found.err != nil && found.err.member != "":
		herr.Outcome, herr.Detail = OutcomeUnexpectedPeer, fmt.Sprintf("the address %s of member %s %s", p.addr, p.id, found.err.detail)
	case found.err != nil && found.err.reason == RefusalTLSUnknownKey:
		herr.Outcome, herr.Detail = OutcomeBadProof, fmt.Sprintf("peer %s did not prove the identity key the group lists for it (%x…): it %s",
			p.id, m.keys[p.id][:4], found.err.detail)
	case found.err != nil:
		herr.Outcome, herr.Detail = OutcomeMalformed, fmt.Sprintf("peer %s %s", p.id, found.err.detail)
	case isTimeout(err):
		herr.Detail = fmt.Sprintf("peer %s did not complete the TLS handshake within %v", p.id, m.cfg.HandshakeTimeout)
	case isRemoteAlert(err):
		herr.Outcome, herr.Detail = OutcomeRefusedByPeer, fmt.Sprintf("peer %s refused this signer's TLS handshake: %v", p.id, err)
	case found.member != "":
		herr.Outcome, herr.Detail = OutcomeBadProof, fmt.Sprintf("peer %s presented its identity key and did not prove it: %v", p.id, err)
	}
	m.recordHandshakeFailure(herr, p.addr, "dialled")
}

// isRemoteAlert: the peer ended the TLS handshake with an alert (it
// refused something).
func isRemoteAlert(err error) bool {
	var opErr *net.OpError
	return errors.As(err, &opErr) && opErr.Op == "remote error"
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}

// keysByMember indexes the group's identity keys both ways.
func keysByMember(g twophase.Group) (map[twophase.PeerID]ed25519.PublicKey, map[string]twophase.PeerID) {
	keys, byKey := map[twophase.PeerID]ed25519.PublicKey{}, map[string]twophase.PeerID{}
	for _, mem := range g.Members {
		keys[mem.ID] = mem.IdentityKey
		byKey[string(bytes.Clone(mem.IdentityKey))] = mem.ID
	}
	return keys, byKey
}
