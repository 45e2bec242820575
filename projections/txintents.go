package projections

import (
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"

	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/topics"
)

// TxIntents records every transaction the relayer signed and how it
// ended: the audit trail of side effects, and the open intents a handler
// must reconcile before sending anything new. One row per (subject,
// transaction hash): the first intent with them wins, and an outcome
// settles the row (or is a row of its own, with a zero hash, for a
// decision taken without a send). Intents and outcomes of one subject
// share its partition.
//
// Version 2 keys each row by the log position of the event that created
// it (as the lifecycle tables are), with (subject, tx_hash) unique, and
// folds in sessions: so a rebuild loads the table in bulk instead of one
// INSERT through SQLite's engine per intent and outcome, which made a
// relay's own log replay several times slower than its lifecycles alone.
// Version 1 had the same rows without the id, keyed by (subject,
// tx_hash).
type TxIntents struct{}

func (TxIntents) Name() string { return "tx_intents" }
func (TxIntents) Version() int { return 2 }
func (TxIntents) Topics() []string {
	return []string{topics.TopicBridge, topics.TopicBatches, topics.TopicClaims}
}
func (TxIntents) KeepsNothingPastBatch() {} // held rows copy the strings they keep

func (p TxIntents) table() string { return txIntentTable.Name }

func (p TxIntents) Tables() []Table { return []Table{txIntentTable.Table} }

var txIntentTable = declareTable(Versioned("tx_intents", TxIntents{}.Version()), []string{"id"},
	[]Index{{Columns: []string{"subject", "tx_hash"}, Unique: true}, {Columns: []string{"status"}}},
	i64Col("id", func(r *txRow) *int64 { return &r.id }), // PositionID of the event that created the row
	strCol("subject", func(r *txRow) *string { return &r.subject }),
	strCol("tx_hash", func(r *txRow) *string { return &r.txHash }),
	strCol("purpose", func(r *txRow) *string { return &r.purpose }),
	i64Col("chain_id", func(r *txRow) *int64 { return &r.chainID }),
	strCol("sender", func(r *txRow) *string { return &r.sender }),
	i64Col("nonce", func(r *txRow) *int64 { return &r.nonce }),
	i64Col("attempt", func(r *txRow) *int64 { return &r.tries }),
	strCol("intent_json", func(r *txRow) *string { return &r.intentJSON }),
	strCol("status", func(r *txRow) *string { return &r.status }),
	strCol("reason", func(r *txRow) *string { return &r.reason }),
	i64Col("gas_used", func(r *txRow) *int64 { return &r.gasUsed }),
	i64Col("block_number", func(r *txRow) *int64 { return &r.blockNumber }),
	textCol("sent_at", func(r *txRow) *sql.NullString { return &r.sentAt }),
	textCol("settled_at", func(r *txRow) *sql.NullString { return &r.settledAt }),
)

var (
	txIntentCols = txIntentTable.ColumnNames()
	// A row's key columns never change: leaving them out of the update
	// spares SQLite rewriting its (subject, tx_hash) index entry.
	txIntentUpdate = txIntentTable.except("id", "subject", "tx_hash")
	// txIntentSubject is the column a subject's rows are found by.
	txIntentSubject = txIntentTable.col("subject")
)

// TxOpen is the status of an intent without an outcome.
const TxOpen = "OPEN"

func (p TxIntents) Apply(ctx context.Context, tx Tx, ev *Event) error {
	f := newTxIntentFold(p.table(), false)
	if err := f.ApplyBatch(ctx, tx, []*Event{ev}); err != nil {
		return err
	}
	return f.Flush(ctx, tx)
}

func (p TxIntents) NewSession(fromZero bool) Session { return newTxIntentFold(p.table(), fromZero) }

// txKey is a tx_intents row's identity.
type txKey struct {
	subject string
	hash    domain.Hash32
}

// hash64 is a 64-bit FNV-1a of the key.
func (k txKey) hash64() int64 {
	h := fnv.New64a()
	h.Write([]byte(k.subject))
	h.Write([]byte{0})
	h.Write(k.hash[:])
	return int64(h.Sum64())
}

// storedAs is the row's id and whether it was read from the table.
func (r *txRow) storedAs() (int64, bool) { return r.id, r.loaded }

// txRow is a tx_intents row.
type txRow struct {
	id                    int64
	loaded                bool // read from the table, not created by this fold
	subject, txHash       string
	purpose, sender       string
	chainID, nonce, tries int64
	intentJSON            string
	status, reason        string
	gasUsed, blockNumber  int64
	sentAt, settledAt     sql.NullString
}

func (r *txRow) scan(sr RowScanner) (txKey, error) {
	if err := txIntentTable.scan(sr, r); err != nil {
		return txKey{}, err
	}
	h, err := domain.ParseHash32(r.txHash)
	if err != nil {
		return txKey{}, fmt.Errorf("row %d: tx_hash: %w", r.id, err)
	}
	return txKey{subject: r.subject, hash: h}, nil
}

// txSubject returns the row an event is about, if it is an intent or an
// outcome.
func txSubject(ev *Event) (txKey, bool) {
	switch e := ev.Body.(type) {
	case *domain.TxIntent:
		return txKey{subject: e.Subject, hash: e.TxHash}, true
	case *domain.TxOutcome:
		return txKey{subject: e.Subject, hash: e.TxHash}, true
	}
	return txKey{}, false
}

// txIntentFold folds intents and outcomes as [lifecycleFold] folds
// lifecycles: it loads the rows a batch touches, folds each event into
// its row (creating it, keyed by the event's position, when new), and
// holds the changed rows until Flush writes them in bulk.
type txIntentFold struct {
	heldRows[txKey, *txRow]        // from zero, read back by id instead of through the (subject, tx_hash) index
	js                      []byte // an intent's JSON, before it is copied into its row
}

func newTxIntentFold(table string, fromZero bool) *txIntentFold {
	upsert := Bulk{Table: table, Columns: txIntentCols, OnConflict: txIntentTable.PrimaryKey, Update: txIntentUpdate}
	return &txIntentFold{heldRows: newHeldRows[txKey, *txRow](table, upsert, txIntentTable.args, txKey.hash64, fromZero)}
}

func (f *txIntentFold) ApplyBatch(ctx context.Context, tx Tx, evs []*Event) error {
	if err := f.load(ctx, tx, evs); err != nil {
		return err
	}
	for _, ev := range evs {
		k, ok := txSubject(ev)
		if !ok {
			continue
		}
		r := f.held[k]
		at := nullTime(ev.Envelope.RecordedAt)
		switch e := ev.Body.(type) {
		case *domain.TxIntent:
			if r != nil {
				continue // the first intent with the key wins
			}
			id, err := PositionID(ev.Position)
			if err != nil {
				return err
			}
			k.subject = strings.Clone(k.subject) // the event's memory is reused after its batch
			f.hold(k, &txRow{id: id, subject: k.subject, txHash: e.TxHash.Hex(), purpose: string(e.Purpose),
				chainID: int64(e.ChainID), sender: e.From.Hex(), nonce: int64(e.Nonce), tries: int64(e.Attempt),
				intentJSON: string(f.intentJSON(e)), status: TxOpen, sentAt: at})
		case *domain.TxOutcome:
			if r == nil {
				// Decisions taken without a send (a call that would
				// revert) have no intent: their outcome is its own row.
				id, err := PositionID(ev.Position)
				if err != nil {
					return err
				}
				k.subject = strings.Clone(k.subject)
				r = &txRow{id: id, subject: k.subject, txHash: e.TxHash.Hex(), purpose: string(e.Purpose),
					nonce: int64(e.Nonce), sentAt: at}
				f.hold(k, r)
			}
			r.status, r.reason = string(e.Status), strings.Clone(e.Reason)
			r.gasUsed, r.blockNumber, r.settledAt = int64(e.GasUsed), int64(e.BlockNumber), at
		}
	}
	if len(f.held) >= maxHeldRows {
		return f.Flush(ctx, tx) // bound the memory a long transaction holds
	}
	return nil
}

// load reads the stored rows the batch touches that are not held yet: by
// id from the fold's own record when loading from zero (the table has no
// secondary index then), else through the (subject, tx_hash) index.
func (f *txIntentFold) load(ctx context.Context, tx Tx, evs []*Event) error {
	want := map[txKey]bool{}
	var ids []int64
	var subjects []any
	for _, ev := range evs {
		k, ok := txSubject(ev)
		if !ok || want[k] || f.held[k] != nil {
			continue
		}
		want[k] = true
		if f.fromZero {
			ids = append(ids, f.storedIDs(k)...)
		} else {
			subjects = append(subjects, k.subject)
		}
	}
	each := func(sr RowScanner) error {
		r := &txRow{}
		k, err := r.scan(sr)
		if err != nil {
			return fmt.Errorf("%s: %w", f.table, err)
		}
		if want[k] && f.held[k] == nil {
			r.loaded = true
			f.hold(k, r)
		}
		return nil
	}
	if f.fromZero {
		return selectByID(ctx, tx, f.table, txIntentCols, ids, each)
	}
	return queryIn(ctx, tx, `SELECT `+strings.Join(txIntentCols, ", ")+` FROM `+f.table, txIntentSubject, subjects, each)
}

// intentJSON returns e's JSON in the fold's buffer, valid until the next call.
func (f *txIntentFold) intentJSON(e *domain.TxIntent) []byte {
	f.js = appendIntentJSON(f.js[:0], e)
	return f.js
}

// appendIntentJSON appends e as encoding/json marshals it, byte for byte
// (the table's digest covers intent_json), without reflection: json.Marshal
// took 0.7 of a relay log rebuild's 12 core-seconds (BENCHMARKS.md).
func appendIntentJSON(dst []byte, e *domain.TxIntent) []byte {
	dst = append(dst, `{"purpose":`...)
	dst = appendJSONString(dst, string(e.Purpose))
	dst = append(dst, `,"subject":`...)
	dst = appendJSONString(dst, e.Subject)
	dst = append(dst, `,"chainId":`...)
	dst = strconv.AppendUint(dst, e.ChainID, 10)
	dst = append(dst, `,"from":"`...)
	dst = e.From.AppendHex(dst)
	dst = append(dst, `","nonce":`...)
	dst = strconv.AppendUint(dst, e.Nonce, 10)
	dst = append(dst, `,"gas":`...)
	dst = strconv.AppendUint(dst, e.Gas, 10)
	dst = append(dst, `,"txHash":"`...)
	dst = e.TxHash.AppendHex(dst)
	dst = append(dst, `","rawTx":`...)
	if e.RawTx == nil {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, '"')
		dst = base64.StdEncoding.AppendEncode(dst, e.RawTx)
		dst = append(dst, '"')
	}
	dst = append(dst, `,"gasFeeCap":"`...)
	dst = e.GasFeeCap.AppendDecimal(dst)
	dst = append(dst, `","gasTipCap":"`...)
	dst = e.GasTipCap.AppendDecimal(dst)
	dst = append(dst, `","attempt":`...)
	dst = strconv.AppendInt(dst, int64(e.Attempt), 10)
	if e.Cancel {
		dst = append(dst, `,"cancel":true`...)
	}
	return append(dst, '}')
}

// appendJSONString appends s quoted as encoding/json quotes it. Strings of
// printable ASCII that it leaves alone (the subjects are) are copied;
// anything else is left to encoding/json, whose escapes (HTML characters,
// control characters, invalid UTF-8, U+2028) are not worth copying here.
func appendJSONString(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			b, _ := json.Marshal(s) // a string always marshals
			return append(dst, b...)
		}
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"')
}
