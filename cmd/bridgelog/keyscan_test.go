package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/bridgelog/bridgelog/adapters/embeddedlog"
	"github.com/bridgelog/bridgelog/analytics/chtest"
	"github.com/bridgelog/bridgelog/topics"
)

// secret is one piece of key material a devnet run used, and the ways it
// could be written out.
type secret struct {
	role  string
	value []byte
	forms []secretForm
}

// secretForm is one encoding of a secret.
type secretForm struct {
	name string
	b    []byte
}

// secretForms are the ways a secret may end up in a byte stream: raw,
// hex in either case with or without 0x, and base64 (standard and URL
// alphabets, of the secret and of its hex) at each of the three byte
// alignments it can have inside a longer encoded value.
func secretForms(v []byte) []secretForm {
	lower := hex.EncodeToString(v)
	upper := strings.ToUpper(lower)
	forms := []secretForm{{"raw bytes", v}, {"hex", []byte(lower)}, {"HEX", []byte(upper)},
		{"0x hex", []byte("0x" + lower)}, {"0X HEX", []byte("0X" + upper)}}
	for _, of := range []struct {
		name string
		b    []byte
	}{{"", v}, {" of its hex", []byte(lower)}} {
		for _, enc := range []struct {
			name string
			e    *base64.Encoding
		}{{"base64", base64.StdEncoding}, {"base64url", base64.URLEncoding}} {
			for shift := range 3 {
				forms = append(forms, secretForm{fmt.Sprintf("%s%s at byte alignment %d", enc.name, of.name, shift),
					base64Core(enc.e, of.b, shift)})
			}
		}
	}
	return forms
}

// base64Core is the part of the base64 of v, preceded by shift other
// bytes, that only v's bytes determine: the characters whose six bits
// all fall inside v.
func base64Core(e *base64.Encoding, v []byte, shift int) []byte {
	enc := e.EncodeToString(append(make([]byte, shift), v...))
	from := (8*shift + 5) / 6
	to := (8*(shift+len(v)) - 6) / 6
	return []byte(enc[from : to+1])
}

// keyScan holds the secrets of a run and searches byte sources for them.
type keyScan struct {
	t       *testing.T
	secrets []*secret
	sources int
	scanned int64
}

// add records a secret; the same value under a second role (a claim
// wallet that mints, a keystore key that is also a dev account) is one
// secret with both roles.
func (k *keyScan) add(role string, value []byte) {
	k.t.Helper()
	if len(value) < 16 {
		k.t.Fatalf("key scan: %s is %d bytes: too short to be a secret, or misread", role, len(value))
	}
	for _, s := range k.secrets {
		if bytes.Equal(s.value, value) {
			if !strings.Contains(s.role, role) {
				s.role += " = " + role
			}
			return
		}
	}
	k.secrets = append(k.secrets, &secret{role: role, value: bytes.Clone(value), forms: secretForms(value)})
}

// finding is a secret seen in a source.
type finding struct {
	role, form, source string
	offset             int
}

func (f finding) String() string {
	return fmt.Sprintf("%s found in %s at offset %d (as %s)", f.role, f.source, f.offset, f.form)
}

// find searches b for every form of every secret.
func (k *keyScan) find(source string, b []byte) []finding {
	k.sources++
	k.scanned += int64(len(b))
	var out []finding
	for _, s := range k.secrets {
		for _, f := range s.forms {
			if i := bytes.Index(b, f.b); i >= 0 {
				out = append(out, finding{role: s.role, form: f.name, source: source, offset: i})
			}
		}
	}
	return out
}

// scan fails the test for every secret found in b.
func (k *keyScan) scan(source string, b []byte) {
	k.t.Helper()
	for _, f := range k.find(source, b) {
		k.t.Errorf("key material leaked: %s", f)
	}
}

// scanFile scans a file's bytes.
func (k *keyScan) scanFile(path string) {
	k.t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		k.t.Fatal(err)
	}
	k.scan(path, b)
}

// scanLog scans the key and value of every record of every topic of the
// embedded log in dir, and returns how many records it read.
func (k *keyScan) scanLog(dir string) int {
	k.t.Helper()
	ctx := context.Background()
	lg, err := embeddedlog.OpenReadOnly(dir)
	if err != nil {
		k.t.Fatalf("open the log %s: %v", dir, err)
	}
	defer lg.Close()
	n := 0
	for _, spec := range topics.Topics() {
		ends, err := lg.EndOffsets(ctx, spec.Name)
		if errors.Is(err, topics.ErrUnknownTopic) {
			continue
		}
		if err != nil {
			k.t.Fatal(err)
		}
		for p := range ends {
			_, err := lg.Scan(ctx, spec.Name, int32(p), 0, func(r topics.Record) error {
				at := fmt.Sprintf("the log %s, record %s/%d/%d", dir, r.Topic, r.Partition, r.Offset)
				k.scan(at+" key", r.Key)
				k.scan(at+" value", r.Value)
				n++
				return nil
			})
			if err != nil {
				k.t.Fatal(err)
			}
		}
	}
	return n
}

// scanStore scans every row of every table of a SQLite store, and
// returns how many rows it read.
func (k *keyScan) scanStore(path string) int {
	k.t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		k.t.Fatal(err)
	}
	defer db.Close()
	var tables []string
	rows, err := db.Query(`SELECT name FROM sqlite_master WHERE type = 'table'`)
	if err != nil {
		k.t.Fatalf("list the tables of %s: %v", path, err)
	}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			k.t.Fatal(err)
		}
		tables = append(tables, name)
	}
	rows.Close()
	n := 0
	for _, table := range tables {
		rows, err := db.Query(`SELECT * FROM "` + table + `"`)
		if err != nil {
			k.t.Fatalf("read %s of %s: %v", table, path, err)
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				k.t.Fatal(err)
			}
			var row bytes.Buffer
			for _, v := range vals {
				writeValue(&row, v)
			}
			k.scan(fmt.Sprintf("the store %s, table %s row %d", path, table, n), row.Bytes())
			n++
		}
		rows.Close()
	}
	return n
}

// writeValue writes a column value: strings and bytes as they are, the
// rest as Go prints them; a tab after each.
func writeValue(w *bytes.Buffer, v any) {
	switch x := v.(type) {
	case []byte:
		w.Write(x)
	case string:
		w.WriteString(x)
	default:
		fmt.Fprint(w, x)
	}
	w.WriteByte('\t')
}

// scanWarehouse scans every row of every table of a ClickHouse database,
// and returns how many rows it read.
func (k *keyScan) scanWarehouse(dsn string) int {
	k.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	conn := chtest.Open(k.t, dsn)
	var tables []string
	rows, err := conn.Query(ctx, `SELECT name FROM system.tables WHERE database = currentDatabase()`)
	if err != nil {
		k.t.Fatalf("list the warehouse's tables: %v", err)
	}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			k.t.Fatal(err)
		}
		tables = append(tables, name)
	}
	rows.Close()
	if len(tables) == 0 {
		k.t.Fatalf("the warehouse %s has no tables", dsn)
	}
	n := 0
	for _, table := range tables {
		rows, err := conn.Query(ctx, "SELECT * FROM `"+table+"`")
		if err != nil {
			k.t.Fatalf("read the warehouse's %s: %v", table, err)
		}
		types := rows.ColumnTypes()
		for rows.Next() {
			vals := make([]any, len(types))
			for i, c := range types {
				vals[i] = reflect.New(c.ScanType()).Interface()
			}
			if err := rows.Scan(vals...); err != nil {
				k.t.Fatalf("read the warehouse's %s: %v", table, err)
			}
			var row bytes.Buffer
			for _, v := range vals {
				writeValue(&row, reflect.ValueOf(v).Elem().Interface())
			}
			k.scan(fmt.Sprintf("the warehouse's table %s row %d", table, n), row.Bytes())
			n++
		}
		if err := rows.Err(); err != nil {
			k.t.Fatalf("read the warehouse's %s: %v", table, err)
		}
		rows.Close()
	}
	return n
}

// scanURL fetches a page and scans its body.
func (k *keyScan) scanURL(url string) string {
	k.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		k.t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		k.t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		k.t.Fatalf("GET %s: %d %v\n%s", url, resp.StatusCode, err, b)
	}
	k.scan("GET "+url, b)
	return string(b)
}

// TestKeyScanFindsPlantedSecrets: the scanner finds a secret written out
// as logs, errors and JSON write keys (hex in either case, with 0x,
// base64 of either alphabet at any alignment, raw bytes) inside other
// bytes, names its role, source and offset, and finds nothing in bytes
// that hold no secret or a secret one bit off.
func TestKeyScanFindsPlantedSecrets(t *testing.T) {
	k := &keyScan{t: t}
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	raw := crypto.FromECDSA(key)
	k.add("the planted key", raw)
	k.add("the planted passphrase", []byte("correct horse battery staple 42"))

	for _, s := range k.secrets {
		for _, f := range s.forms {
			for shift := range 4 {
				junk := make([]byte, 64)
				if _, err := rand.Read(junk); err != nil {
					t.Fatal(err)
				}
				b := append(append(append([]byte(nil), junk[:16+shift]...), f.b...), junk[16:]...)
				got := k.find("planted", b)
				if len(got) == 0 || got[0].role != s.role || got[0].source != "planted" {
					t.Fatalf("%s as %s after %d bytes: found %v", s.role, f.name, 16+shift, got)
				}
			}
		}
	}

	// Keys as code that leaks them would write them.
	var logged bytes.Buffer
	slog.New(slog.NewJSONHandler(&logged, nil)).Info("signing", "key", raw)
	slog.New(slog.NewTextHandler(&logged, nil)).Info("signing", "key", fmt.Sprintf("%#x", raw))
	asJSON, _ := json.Marshal(struct{ Key []byte }{raw})
	for name, b := range map[string][]byte{
		"a JSON log line (base64)":      logged.Bytes()[:bytes.IndexByte(logged.Bytes(), '\n')],
		"a text log line (0x hex)":      logged.Bytes()[bytes.IndexByte(logged.Bytes(), '\n'):],
		"an error (upper-case hex)":     []byte(fmt.Errorf("bad key %X: %w", raw, errors.New("x")).Error()),
		"a JSON document ([]byte)":      asJSON,
		"unpadded base64url of the key": []byte("k=" + base64.RawURLEncoding.EncodeToString(raw)),
		"the passphrase in a message":   []byte(`unlock failed with passphrase "correct horse battery staple 42"`),
	} {
		got := k.find(name, b)
		if len(got) == 0 {
			t.Errorf("%s: nothing found in %q", name, b)
			continue
		}
		if s := got[0].String(); !strings.Contains(s, "the planted") || !strings.Contains(s, name) || !strings.Contains(s, "offset") {
			t.Errorf("a finding says %q: want the role, the source and the offset", s)
		}
	}

	clean := make([]byte, 1<<16)
	if _, err := rand.Read(clean); err != nil {
		t.Fatal(err)
	}
	flipped := bytes.Clone(raw)
	flipped[len(flipped)/2] ^= 1
	clean = append(clean, hex.EncodeToString(flipped)...)
	if got := k.find("clean", clean); len(got) != 0 {
		t.Fatalf("found secrets in bytes that hold none: %v", got)
	}
}

// keyScanSweep scans every file under data, but the files that hold the
// secrets (the keystore and its passphrase, the signers' key files,
// passphrase and admin credential, the faucet key) and kaspad's own
// database.
func (k *keyScan) keyScanSweep(data string, skip ...string) int {
	k.t.Helper()
	keyFiles := map[string]bool{"identity.key": true, "payout.key": true, "admin.credential": true, "passphrase": true,
		devnetFaucetKey: true}
	n := 0
	err := filepath.WalkDir(data, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(data, path)
		for _, s := range append(skip, devnetKeystoreDir, devnetPassphrase, filepath.Join("kaspa", "node")) {
			if rel == s {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
		}
		if d.IsDir() || keyFiles[d.Name()] || !d.Type().IsRegular() {
			return nil
		}
		k.scanFile(path)
		n++
		return nil
	})
	if err != nil {
		k.t.Fatal(err)
	}
	return n
}
