package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/bridgelog/bridgelog/domain/merkle"
)

const (
	tContract  = "0x5FbDB2315678afecb367f032d93F642f64180aa3"
	tFunder    = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
	tRecipient = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266"
)

func merkleLine(txID, amount string) string {
	return fmt.Sprintf(`{"chainId":"1337","contract":"%s","batchId":"7","txId":"%s","funder":"%s","recipient":"%s","amount":"%s"}`,
		tContract, txID, tFunder, tRecipient, amount)
}

type merkleOut struct {
	Root   common.Hash `json:"root"`
	Count  int         `json:"count"`
	Leaves []struct {
		TxID  string        `json:"txId"`
		Leaf  common.Hash   `json:"leaf"`
		Proof []common.Hash `json:"proof"`
	} `json:"leaves"`
}

// runMerkle runs `merkle build` through cobra as the binary would.
func runMerkle(t *testing.T, stdin string, args ...string) (merkleOut, string, error) {
	t.Helper()
	cmd := newMerkleCmd()
	var out bytes.Buffer
	cmd.SetIn(strings.NewReader(stdin))
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs(append([]string{"build"}, args...))
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	err := cmd.Execute()
	var res merkleOut
	if err == nil {
		if jerr := json.Unmarshal(out.Bytes(), &res); jerr != nil {
			t.Fatalf("output is not one JSON object: %v\n%s", jerr, out.String())
		}
	}
	return res, out.String(), err
}

func TestMerkleBuildPrintsRootAndProofsInInputOrder(t *testing.T) {
	txs := []struct{ id, amount string }{{"42", "1000000000000000000"}, {"7", "5"}, {"100", "115792089237316195423570985008687907853269984665640564039457584007913129639935"}}
	var in strings.Builder
	for _, tx := range txs {
		in.WriteString(merkleLine(tx.id, tx.amount) + "\n\n") // blank lines are skipped
	}
	path := filepath.Join(t.TempDir(), "batch.jsonl")
	if err := os.WriteFile(path, []byte(in.String()), 0o600); err != nil {
		t.Fatal(err)
	}

	for name, run := range map[string]func() (merkleOut, string, error){
		"stdin": func() (merkleOut, string, error) { return runMerkle(t, in.String()) },
		"file":  func() (merkleOut, string, error) { return runMerkle(t, "", "--file", path) },
	} {
		t.Run(name, func(t *testing.T) {
			res, _, err := run()
			if err != nil {
				t.Fatal(err)
			}
			var want []common.Hash
			for _, tx := range txs {
				id, _ := new(big.Int).SetString(tx.id, 10)
				amt, _ := new(big.Int).SetString(tx.amount, 10)
				l, err := merkle.Leaf(big.NewInt(1337), common.HexToAddress(tContract), big.NewInt(7), id, common.HexToAddress(tFunder), common.HexToAddress(tRecipient), amt)
				if err != nil {
					t.Fatal(err)
				}
				want = append(want, l)
			}
			tr, _ := merkle.New(want)
			if res.Root != tr.Root() || res.Count != len(txs) || len(res.Leaves) != len(txs) {
				t.Fatalf("got root %s count %d leaves %d; want %s, %d", res.Root, res.Count, len(res.Leaves), tr.Root(), len(txs))
			}
			for i, l := range res.Leaves {
				if l.TxID != txs[i].id || l.Leaf != want[i] {
					t.Fatalf("leaf %d = %s/%s, want %s/%s", i, l.TxID, l.Leaf, txs[i].id, want[i])
				}
				if !merkle.Verify(res.Root, l.Leaf, l.Proof) {
					t.Fatalf("proof %d does not verify", i)
				}
			}
		})
	}
}

func TestMerkleBuildSingleLeafHasEmptyProofArray(t *testing.T) {
	_, raw, err := runMerkle(t, merkleLine("1", "1"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(raw, `"proof":[]`) {
		t.Fatalf("single-leaf output %s lacks \"proof\":[]", raw)
	}
}

func TestMerkleBuildRejectsBadInput(t *testing.T) {
	good := merkleLine("1", "10")
	other := func(old, new string) string { return strings.Replace(merkleLine("2", "10"), old, new, 1) }
	cases := []struct {
		name, input string
		line        int
		field, msg  string
	}{
		{"not json", good + "\n{oops\n", 2, "", "not a JSON object"},
		{"trailing data", good + " {}\n", 1, "", "trailing data"},
		{"missing field", `{"chainId":"1"}`, 1, "contract", "missing"},
		{"number not string", other(`"amount":"10"`, `"amount":10`), 1, "amount", "must be a JSON string"},
		{"negative", other(`"amount":"10"`, `"amount":"-10"`), 1, "amount", "not a decimal integer"},
		{"hex number", other(`"txId":"2"`, `"txId":"0x2"`), 1, "txId", "not a decimal integer"},
		{"over uint256", other(`"amount":"10"`, `"amount":"`+new(big.Int).Lsh(big.NewInt(1), 256).String()+`"`), 1, "amount", "does not fit in uint256"},
		{"bad address", other(tRecipient, "0x1234"), 1, "recipient", "not a 20-byte hex address"},
		{"bad checksum", other(tFunder, strings.Replace(tFunder, "C5", "c5", 1)), 1, "funder", "EIP-55"},
		{"unknown field", strings.Replace(good, `{`, `{"extra":"1",`, 1), 1, "extra", "unknown field"},
		{"other batch", good + "\n" + other(`"batchId":"7"`, `"batchId":"8"`), 2, "batchId", "one tree is one batch"},
		{"other chain", good + "\n" + other(`"chainId":"1337"`, `"chainId":"1"`), 2, "chainId", "one tree is one batch"},
		{"duplicate txId", good + "\n" + merkleLine("1", "99"), 2, "txId", "already on line 1"},
		{"line too long", good + "\n" + strings.Repeat(" ", maxMerkleLine+1) + "\n", 2, "", "longer than 4096"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := runMerkle(t, tc.input)
			var ee *exitError
			if !errors.As(err, &ee) || ee.code != exitBadInput {
				t.Fatalf("error %v, want exit code %d", err, exitBadInput)
			}
			var le *merkleLineError
			if !errors.As(err, &le) {
				t.Fatalf("error %v is not a *merkleLineError", err)
			}
			if le.Line != tc.line || le.Field != tc.field || le.File != "stdin" {
				t.Fatalf("error at %s:%d field %q, want stdin:%d field %q (%v)", le.File, le.Line, le.Field, tc.line, tc.field, err)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("error %q lacks %q", err, tc.msg)
			}
		})
	}

	_, _, err := runMerkle(t, "\n\n")
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != exitBadInput || !errors.Is(err, merkle.ErrNoLeaves) {
		t.Fatalf("empty input: error %v, want ErrNoLeaves with exit code %d", err, exitBadInput)
	}
	if _, _, err := runMerkle(t, "", "--file", filepath.Join(t.TempDir(), "absent")); err == nil || errors.As(err, &ee) {
		t.Fatalf("missing file: error %v, want a plain (exit 1) error", err)
	}
}
