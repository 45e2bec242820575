package projections

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"

	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/topics"
)

// Statuses of a kaspa_deposits row.
const (
	KaspaDepositDetected  = "DETECTED"
	KaspaDepositConfirmed = "CONFIRMED"
	KaspaDepositRefused   = "REFUSED"
	KaspaDepositReorged   = "REORGED"
)

// KaspaDeposits is kaspa_deposits@v1, KAS coming in: one row per deposit
// outpoint (DETECTED in the chain block that accepted it, then CONFIRMED
// or REFUSED at the depth, or REORGED when that block left the virtual
// chain; a sighting in another block starts the row over there), the Kaspa
// indexer's cursor (kaspa_cursor, one row per network), and the deposit
// addresses handed out (kaspa_deposit_addresses), which the indexer
// watches. A deposit's events share its partition and the cursor's its
// network's, so plain log order applies; addresses are written once.
type KaspaDeposits struct{}

func (KaspaDeposits) Name() string           { return "kaspa_deposits" }
func (KaspaDeposits) Version() int           { return 1 }
func (KaspaDeposits) Topics() []string       { return []string{topics.TopicBridge, topics.TopicChain} }
func (KaspaDeposits) KeepsNothingPastBatch() {} // every value goes to the store in Apply
func (KaspaDeposits) Tables() []Table {
	return []Table{kasDepositTable.Table, kasCursorTable.Table, kasAddressTable.Table}
}

type kasDepositRow struct {
	outpoint, txID, sompi, recipient, block, status string
	outputIndex                                     int64
	daaScore                                        sql.NullInt64
	refusal, detectedAt, settledAt, reorgedBlock    sql.NullString
	verdictDAAScore                                 sql.NullInt64
	wasFinal                                        int64
}

var kasDepositTable = declareTable(Versioned(KaspaDeposits{}.Name(), KaspaDeposits{}.Version()), []string{"outpoint"},
	[]Index{{Columns: []string{"status"}}, {Columns: []string{"block"}}},
	strCol("outpoint", func(r *kasDepositRow) *string { return &r.outpoint }),
	strCol("tx_id", func(r *kasDepositRow) *string { return &r.txID }),
	i64Col("output_index", func(r *kasDepositRow) *int64 { return &r.outputIndex }),
	strCol("sompi", func(r *kasDepositRow) *string { return &r.sompi }),
	strCol("recipient", func(r *kasDepositRow) *string { return &r.recipient }), // "" when none
	strCol("block", func(r *kasDepositRow) *string { return &r.block }),
	intCol("daa_score", func(r *kasDepositRow) *sql.NullInt64 { return &r.daaScore }),
	strCol("status", func(r *kasDepositRow) *string { return &r.status }),
	textCol("refusal", func(r *kasDepositRow) *sql.NullString { return &r.refusal }),
	textCol("detected_at", func(r *kasDepositRow) *sql.NullString { return &r.detectedAt }),
	textCol("settled_at", func(r *kasDepositRow) *sql.NullString { return &r.settledAt }),
	intCol("verdict_daa_score", func(r *kasDepositRow) *sql.NullInt64 { return &r.verdictDAAScore }),
	textCol("reorged_block", func(r *kasDepositRow) *sql.NullString { return &r.reorgedBlock }),
	i64Col("was_final", func(r *kasDepositRow) *int64 { return &r.wasFinal }),
)

type kasCursorRow struct {
	network, block string
	seq, scans     int64
	virtualDAA     sql.NullInt64
	updatedAt      sql.NullString
}

var kasCursorTable = declareTable(Versioned("kaspa_cursor", KaspaDeposits{}.Version()), []string{"network"}, nil,
	strCol("network", func(r *kasCursorRow) *string { return &r.network }),
	i64Col("seq", func(r *kasCursorRow) *int64 { return &r.seq }),
	strCol("block", func(r *kasCursorRow) *string { return &r.block }),
	intCol("virtual_daa_score", func(r *kasCursorRow) *sql.NullInt64 { return &r.virtualDAA }),
	i64Col("scans", func(r *kasCursorRow) *int64 { return &r.scans }),
	textCol("updated_at", func(r *kasCursorRow) *sql.NullString { return &r.updatedAt }),
)

type kasAddressRow struct {
	address, network, groupAddress, recipient, issuedBy string
	issuedAt                                            sql.NullString
}

var kasAddressTable = declareTable(Versioned("kaspa_deposit_addresses", KaspaDeposits{}.Version()), []string{"address"},
	[]Index{{Columns: []string{"network"}}},
	strCol("address", func(r *kasAddressRow) *string { return &r.address }),
	strCol("network", func(r *kasAddressRow) *string { return &r.network }),
	strCol("group_address", func(r *kasAddressRow) *string { return &r.groupAddress }),
	strCol("recipient", func(r *kasAddressRow) *string { return &r.recipient }),
	strCol("issued_by", func(r *kasAddressRow) *string { return &r.issuedBy }),
	textCol("issued_at", func(r *kasAddressRow) *sql.NullString { return &r.issuedAt }),
)

// kasInBlock matches a deposit's row while it is still what the event's
// block made it.
const kasInBlock = "outpoint = ? AND block = ? AND status = ?"

var (
	// A sighting starts the row over in its block, keeping only the
	// block it was reorged out of before.
	kasDetected = kasDepositTable.upsertSQL(kasDepositTable.except("outpoint", "reorged_block"))
	kasVerdict  = kasDepositTable.updateWhereSQL(kasInBlock, "status", "settled_at", "verdict_daa_score")
	kasReorged  = kasDepositTable.updateWhereSQL("outpoint = ? AND block = ? AND status <> ?", "status", "reorged_block", "was_final")
	kasScanned  = kasCursorTable.upsertSQL([]string{"seq", "block", "virtual_daa_score", "updated_at"}, "scans")
	kasIssued   = kasAddressTable.insertNewSQL()

	kasCursorOf    = kasCursorTable.selectLive("network = ?", "seq", "block")
	kasOpen        = kasDepositTable.selectLive("status = ? ORDER BY daa_score, outpoint", "outpoint", "block", "daa_score", "refusal", "status")
	kasInBlocks    = kasDepositTable.selectLive("block = ? AND status <> ? ORDER BY outpoint", "outpoint", "block", "daa_score", "refusal", "status")
	kasRecipients  = kasAddressTable.selectLive("network = ? ORDER BY address", "recipient")
	kasByStatus    = kasDepositTable.countBy("status")
	kasDepositList = kasDepositTable.queryLive("ORDER BY detected_at, outpoint LIMIT ?")
)

func (p KaspaDeposits) Apply(ctx context.Context, tx Tx, ev *Event) error {
	at := eventTime(ev)
	switch e := ev.Body.(type) {
	case *domain.KaspaDepositDetected:
		daa, err := nullUint(e.DAAScore, "daa_score", ev)
		if err != nil {
			return err
		}
		r := kasDepositRow{outpoint: e.Outpoint.Key(), txID: e.Outpoint.Key()[:64], outputIndex: int64(e.Outpoint.Index),
			sompi: strconv.FormatUint(e.Amount, 10), block: e.Block.Hex(), daaScore: daa, status: KaspaDepositDetected, detectedAt: at}
		if e.Recipient != (domain.Address{}) {
			r.recipient = e.Recipient.Hex()
		}
		if e.Refusal != "" {
			r.refusal = nullText(e.Refusal)
		}
		_, err = tx.Exec(ctx, kasDetected, kasDepositTable.args(&r, nil, false)...)
		return err
	case *domain.KaspaDepositConfirmed:
		return p.verdict(ctx, tx, ev, e.Outpoint, e.Block, KaspaDepositConfirmed, e.VirtualDAAScore)
	case *domain.KaspaDepositRefused:
		return p.verdict(ctx, tx, ev, e.Outpoint, e.Block, KaspaDepositRefused, e.VirtualDAAScore)
	case *domain.KaspaDepositReorged:
		final := int64(0)
		if e.WasFinal {
			final = 1
		}
		_, err := tx.Exec(ctx, kasReorged, KaspaDepositReorged, nullText(e.Block.Hex()), final,
			e.Outpoint.Key(), e.Block.Hex(), KaspaDepositReorged)
		return err
	case *domain.KaspaChainScanned:
		seq, err := nullUint(e.Seq, "seq", ev)
		if err != nil {
			return err
		}
		daa, err := nullUint(e.VirtualDAAScore, "virtual_daa_score", ev)
		if err != nil {
			return err
		}
		r := kasCursorRow{network: e.Network, seq: seq.Int64, block: e.To.Hex(), virtualDAA: daa, scans: 1, updatedAt: nullTime(ev.Envelope.RecordedAt)}
		_, err = tx.Exec(ctx, kasScanned, kasCursorTable.args(&r, nil, false)...)
		return err
	case *domain.KaspaDepositAddressIssued:
		r := kasAddressRow{address: e.Address, network: e.Network, groupAddress: e.GroupAddress, recipient: e.Recipient.Hex(),
			issuedBy: e.IssuedBy, issuedAt: nullTime(ev.Envelope.RecordedAt)}
		_, err := tx.Exec(ctx, kasIssued, kasAddressTable.args(&r, nil, false)...)
		return err
	}
	return nil
}

func (KaspaDeposits) verdict(ctx context.Context, tx Tx, ev *Event, o domain.KaspaOutpoint, block domain.Hash32, status string, virtual uint64) error {
	v, err := nullUint(virtual, "virtual_daa_score", ev)
	if err != nil {
		return err
	}
	_, err = tx.Exec(ctx, kasVerdict, status, eventTime(ev), v, o.Key(), block.Hex(), KaspaDepositDetected)
	return err
}

// KaspaCursor is the Kaspa indexer's cursor on network: its last scan's
// sequence number and chain block; found is false before the first scan.
func (r BridgeReader) KaspaCursor(ctx context.Context, network string) (seq uint64, block domain.Hash32, found bool, err error) {
	err = r.read(ctx, func(tx Tx) error {
		t, err := table(ctx, tx, KaspaDeposits{}.Name(), "kaspa_cursor")
		if err != nil || t == "" {
			return err
		}
		return queryEach(ctx, tx, kasCursorOf.on(t), []any{network}, func(rows RowScanner) error {
			var s int64
			var h string
			if err := rows.Scan(&s, &h); err != nil {
				return err
			}
			b, err := domain.ParseHash32(h)
			if err != nil {
				return fmt.Errorf("%s: cursor of %s: %w", t, network, err)
			}
			seq, block, found = uint64(s), b, true
			return nil
		})
	})
	return seq, block, found, err
}

// KaspaOpenDeposits lists the deposits detected and not yet confirmed,
// refused or reorged.
func (r BridgeReader) KaspaOpenDeposits(ctx context.Context) ([]domain.KaspaDepositSighting, error) {
	return r.kaspaSightings(ctx, kasOpen, func(string) []any { return []any{KaspaDepositDetected} }, []string{""})
}

// KaspaDepositsInBlocks lists the deposits, open or final, that the
// chain blocks accepted (not those reorged out of them already).
func (r BridgeReader) KaspaDepositsInBlocks(ctx context.Context, blocks []domain.Hash32) ([]domain.KaspaDepositSighting, error) {
	keys := make([]string, len(blocks))
	for i, b := range blocks {
		keys[i] = b.Hex()
	}
	return r.kaspaSightings(ctx, kasInBlocks, func(b string) []any { return []any{b, KaspaDepositReorged} }, keys)
}

func (r BridgeReader) kaspaSightings(ctx context.Context, q liveSQL, args func(string) []any, each []string) ([]domain.KaspaDepositSighting, error) {
	var out []domain.KaspaDepositSighting
	err := r.read(ctx, func(tx Tx) error {
		t, err := table(ctx, tx, KaspaDeposits{}.Name(), KaspaDeposits{}.Name())
		if err != nil || t == "" {
			return err
		}
		for _, k := range each {
			err := queryEach(ctx, tx, q.on(t), args(k), func(rows RowScanner) error {
				var op, block, status string
				var daa sql.NullInt64
				var refusal sql.NullString
				if err := rows.Scan(&op, &block, &daa, &refusal, &status); err != nil {
					return err
				}
				s := domain.KaspaDepositSighting{DAAScore: uint64(daa.Int64), Refusal: refusal.String, Final: status != KaspaDepositDetected}
				var e1, e2 error
				s.Outpoint, e1 = domain.ParseKaspaOutpoint(op)
				s.Block, e2 = domain.ParseHash32(block)
				if e1 != nil || e2 != nil {
					return fmt.Errorf("%s %s: %v %v", t, op, e1, e2)
				}
				out = append(out, s)
				return nil
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
	return out, err
}

// KaspaDepositRecipients lists the recipients whose deposit addresses
// were issued on network.
func (r BridgeReader) KaspaDepositRecipients(ctx context.Context, network string) ([]domain.Address, error) {
	var out []domain.Address
	err := r.read(ctx, func(tx Tx) error {
		t, err := table(ctx, tx, KaspaDeposits{}.Name(), "kaspa_deposit_addresses")
		if err != nil || t == "" {
			return err
		}
		return queryEach(ctx, tx, kasRecipients.on(t), []any{network}, func(rows RowScanner) error {
			var s string
			if err := rows.Scan(&s); err != nil {
				return err
			}
			a, err := domain.ParseAddress(s)
			if err != nil {
				return fmt.Errorf("%s: %w", t, err)
			}
			out = append(out, a)
			return nil
		})
	})
	return out, err
}

// KaspaDepositCounts counts the deposits by status.
func (r BridgeReader) KaspaDepositCounts(ctx context.Context) (map[string]int64, error) {
	return r.countsBy(ctx, KaspaDeposits{}.Name(), KaspaDeposits{}.Name(), kasByStatus)
}

// KaspaDepositRow is a kaspa_deposits row as operators read it.
type KaspaDepositRow struct {
	Outpoint, Recipient, Block, Status, Refusal string
	Sompi                                       string
	DAAScore                                    int64
}

// KaspaDepositList lists up to limit deposits, oldest first.
func (r BridgeReader) KaspaDepositList(ctx context.Context, limit int) ([]KaspaDepositRow, error) {
	var out []KaspaDepositRow
	err := r.read(ctx, func(tx Tx) error {
		t, err := table(ctx, tx, KaspaDeposits{}.Name(), KaspaDeposits{}.Name())
		if err != nil || t == "" {
			return err
		}
		return queryEach(ctx, tx, kasDepositList.on(t), []any{limit}, func(rows RowScanner) error {
			var d kasDepositRow
			if err := kasDepositTable.scan(rows, &d); err != nil {
				return err
			}
			out = append(out, KaspaDepositRow{Outpoint: d.outpoint, Recipient: d.recipient, Block: d.block, Status: d.status,
				Refusal: d.refusal.String, Sompi: d.sompi, DAAScore: d.daaScore.Int64})
			return nil
		})
	})
	return out, err
}
