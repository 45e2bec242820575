package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"os"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/spf13/cobra"

	"github.com/bridgelog/bridgelog/domain/merkle"
)

// maxMerkleLine bounds one input line; a well-formed line is about 300 bytes.
const maxMerkleLine = 4096

// exitBadInput is the exit code for malformed merkle input (1 stays for other failures).
const exitBadInput = 2

// errBadLine marks input errors; a *merkleLineError carries where.
var errBadLine = errors.New("bad input line")

// merkleLineError names the input, line and field that is wrong.
type merkleLineError struct {
	File  string
	Line  int
	Field string
	Err   error
}

func (e *merkleLineError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err)
	}
	return fmt.Sprintf("%s:%d: field %s: %v", e.File, e.Line, e.Field, e.Err)
}

func (e *merkleLineError) Unwrap() []error { return []error{errBadLine, e.Err} }

func init() {
	rootCmd.AddCommand(newMerkleCmd())
}

func newMerkleCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "merkle",
		Short: "Withdrawal batch merkle trees (the leaves and proofs BatchDistributor.claim verifies)",
	}
	var file string
	build := &cobra.Command{
		Use:   "build [--file F]",
		Short: "Build one batch's tree from JSON lines and print its root and every proof",
		Long: `Reads one withdrawal per line as JSON, from --file or standard input:

  {"chainId":"1337","contract":"0x…","batchId":"1","txId":"42",
   "funder":"0x…","recipient":"0x…","amount":"1000000000000000000"}

Numbers are decimal strings (uint256), addresses hex (a mixed-case address must
have a valid EIP-55 checksum). contract is the BatchDistributor; funder is the
withdrawer who burned. Every line must share chainId, contract and batchId (one
tree is one batch), and txIds must be distinct. Blank lines are skipped; a line
may be at most 4096 bytes.

Each leaf is keccak256(abi.encode(chainId, contract, batchId, txId, funder,
recipient, amount)); the tree is OpenZeppelin's SimpleMerkleTree (sorted pairs,
sorted leaves), so proofs pass MerkleProof.verify. Prints one JSON object:

  {"root":"0x…","count":N,"leaves":[{"txId":"42","leaf":"0x…","proof":["0x…",…]},…]}

with leaves in input order. Exit status 2 on malformed input (the message names
the line and field), 1 on other errors.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			in, name := io.Reader(cmd.InOrStdin()), "stdin"
			if file != "" && file != "-" {
				f, err := os.Open(file)
				if err != nil {
					return err
				}
				defer f.Close()
				in, name = f, file
			}
			out := bufio.NewWriterSize(cmd.OutOrStdout(), 1<<16)
			if err := buildMerkle(in, name, out); err != nil {
				if errors.Is(err, errBadLine) || errors.Is(err, merkle.ErrNoLeaves) {
					return &exitError{code: exitBadInput, err: err}
				}
				return err
			}
			return out.Flush()
		},
	}
	build.Flags().StringVar(&file, "file", "", "JSON lines input (default: standard input)")
	cmd.AddCommand(build)
	return cmd
}

// merkleInput is one input line; fields are strings so numbers keep full uint256 precision.
type merkleInput struct {
	ChainID   *string `json:"chainId"`
	Contract  *string `json:"contract"`
	BatchID   *string `json:"batchId"`
	TxID      *string `json:"txId"`
	Funder    *string `json:"funder"`
	Recipient *string `json:"recipient"`
	Amount    *string `json:"amount"`
}

type merkleOutputLeaf struct {
	TxID  string        `json:"txId"`
	Leaf  common.Hash   `json:"leaf"`
	Proof []common.Hash `json:"proof"`
}

// buildMerkle reads JSON lines from in (named name in errors) and writes the tree as JSON to
// out. Leaves are streamed out one by one, so memory stays at the tree, not the output.
func buildMerkle(in io.Reader, name string, out io.Writer) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 1024), maxMerkleLine)

	var (
		leaves    []common.Hash
		txIDs     []string
		seenTx    = map[string]int{}
		firstLine int
		first     struct {
			chainID, batchID string
			contract         common.Address
		}
	)
	line := 0
	for sc.Scan() {
		line++
		raw := bytes.TrimSpace(sc.Bytes())
		if len(raw) == 0 {
			continue
		}
		bad := func(field string, err error) error {
			return &merkleLineError{File: name, Line: line, Field: field, Err: err}
		}
		var rec merkleInput
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&rec); err != nil {
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) {
				return bad(te.Field, fmt.Errorf("must be a JSON string, got %s", te.Value))
			}
			if f, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
				return bad(strings.Trim(f, `"`), errors.New("unknown field"))
			}
			return bad("", fmt.Errorf("not a JSON object: %w", err))
		}
		if dec.More() {
			return bad("", errors.New("trailing data after the JSON object"))
		}

		// Fields are checked in leaf order, so the first bad one is the one reported.
		nums := map[string]*big.Int{}
		addrs := map[string]common.Address{}
		for _, f := range []struct {
			name    string
			v       *string
			address bool
		}{
			{"chainId", rec.ChainID, false}, {"contract", rec.Contract, true}, {"batchId", rec.BatchID, false},
			{"txId", rec.TxID, false}, {"funder", rec.Funder, true}, {"recipient", rec.Recipient, true},
			{"amount", rec.Amount, false},
		} {
			if f.address {
				a, err := parseAddress(f.v)
				if err != nil {
					return bad(f.name, err)
				}
				addrs[f.name] = a
				continue
			}
			n, err := parseUint256(f.v)
			if err != nil {
				return bad(f.name, err)
			}
			nums[f.name] = n
		}

		chainID, batchID, txID := nums["chainId"].String(), nums["batchId"].String(), nums["txId"].String()
		if firstLine == 0 {
			firstLine = line
			first.chainID, first.batchID, first.contract = chainID, batchID, addrs["contract"]
		} else {
			switch {
			case chainID != first.chainID:
				return bad("chainId", fmt.Errorf("%s differs from line %d's %s: one tree is one batch", chainID, firstLine, first.chainID))
			case addrs["contract"] != first.contract:
				return bad("contract", fmt.Errorf("%s differs from line %d's %s: one tree is one batch", addrs["contract"], firstLine, first.contract))
			case batchID != first.batchID:
				return bad("batchId", fmt.Errorf("%s differs from line %d's %s: one tree is one batch", batchID, firstLine, first.batchID))
			}
		}
		if prev, dup := seenTx[txID]; dup {
			return bad("txId", fmt.Errorf("%s already on line %d: a txId pays once", txID, prev))
		}
		seenTx[txID] = line

		leaf, err := merkle.Leaf(nums["chainId"], addrs["contract"], nums["batchId"], nums["txId"], addrs["funder"], addrs["recipient"], nums["amount"])
		if err != nil {
			return bad("", err) // unreachable after parseUint256, kept so no error is dropped
		}
		leaves = append(leaves, leaf)
		txIDs = append(txIDs, txID)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return &merkleLineError{File: name, Line: line + 1, Err: fmt.Errorf("line longer than %d bytes", maxMerkleLine)}
		}
		return fmt.Errorf("read %s: %w", name, err)
	}

	tree, err := merkle.New(leaves)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if _, err := fmt.Fprintf(out, `{"root":"%s","count":%d,"leaves":[`, tree.Root().Hex(), tree.Len()); err != nil {
		return err
	}
	enc := json.NewEncoder(out)
	var proof []common.Hash
	for i := range leaves {
		if i > 0 {
			if _, err := io.WriteString(out, ","); err != nil {
				return err
			}
		}
		proof, err = tree.AppendProof(proof[:0], i)
		if err != nil {
			return err
		}
		p := proof
		if p == nil {
			p = []common.Hash{} // a single-leaf tree has an empty proof, printed as []
		}
		// Encode appends a newline, which is valid JSON whitespace between array elements.
		if err := enc.Encode(merkleOutputLeaf{TxID: txIDs[i], Leaf: leaves[i], Proof: p}); err != nil {
			return err
		}
	}
	_, err = io.WriteString(out, "]}\n")
	return err
}

func parseUint256(s *string) (*big.Int, error) {
	switch {
	case s == nil:
		return nil, errors.New("missing")
	case *s == "":
		return nil, errors.New("empty")
	case strings.TrimLeft(*s, "0123456789") != "":
		return nil, fmt.Errorf("%q is not a decimal integer", *s)
	}
	n, ok := new(big.Int).SetString(*s, 10)
	if !ok {
		return nil, fmt.Errorf("%q is not a decimal integer", *s)
	}
	if n.BitLen() > 256 {
		return nil, fmt.Errorf("%q does not fit in uint256", *s)
	}
	return n, nil
}

func parseAddress(s *string) (common.Address, error) {
	switch {
	case s == nil:
		return common.Address{}, errors.New("missing")
	case !common.IsHexAddress(*s):
		return common.Address{}, fmt.Errorf("%q is not a 20-byte hex address", *s)
	}
	a := common.HexToAddress(*s)
	body := strings.TrimPrefix(strings.TrimPrefix(*s, "0x"), "0X")
	if body != strings.ToLower(body) && body != strings.ToUpper(body) && "0x"+body != a.Hex() {
		return common.Address{}, fmt.Errorf("%q fails its EIP-55 checksum (want %s)", *s, a.Hex())
	}
	return a, nil
}
