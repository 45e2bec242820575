package projections

import (
	"fmt"
	"strings"

	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/domain/twophase"
	"github.com/bridgelog/bridgelog/topics"
)

// Kinds of audit keys: what a key is to the event it finds. One key may
// be of several kinds (a hash that is a transaction of one event and a
// leaf of another), so an audit labels every match with its kind.
const (
	KeyAggregate    = "aggregate"     // the envelope's aggregate id
	KeyCorrelation  = "correlation"   // the envelope's correlation id (when not the aggregate)
	KeySource       = "source_key"    // the envelope's source key
	KeyEventID      = "event_id"      // the envelope's event id
	KeyEVMTx        = "evm_tx"        // an EVM transaction: the log's, a mint, an anchor, a claim
	KeyKaspaTx      = "kaspa_tx"      // a Kaspa payout transaction id
	KeyBatch        = "batch"         // a withdrawal batch: "batches:<chain>:<distributor>/<batch id>"
	KeyLeaf         = "leaf"          // a batch leaf hash
	KeySigningEvent = "signing_event" // a signing event id (0x…), the id behind "signing:0x…"
)

// AuditKey is one key an event can be found by.
type AuditKey struct {
	Key  string
	Kind string
}

// BatchKey is the audit key of a settlement sequence's batch (the batch's
// BatchCreated source key).
func BatchKey(sequenceID string, batchID uint64) string {
	return fmt.Sprintf("%s/%d", sequenceID, batchID)
}

// AuditKeysOf lists every key an event can be audited by: the envelope's
// ids, and from its payload (body, nil for a type this binary does not
// know) the transactions, batch, leaf and signing event it concerns. Keys
// are normalized ([NormalizeAuditKey]); a key is listed once per kind.
func AuditKeysOf(env *topics.Envelope, body domain.Event) []AuditKey {
	ks := auditKeys{list: make([]AuditKey, 0, 8)} // room for every key of most events
	ks.add(env.AggregateID, KeyAggregate)
	if env.CorrelationID != env.AggregateID {
		ks.add(env.CorrelationID, KeyCorrelation)
	}
	ks.add(env.SourceKey, KeySource)
	ks.add(env.ID, KeyEventID)
	if id, ok := twophase.EventOfAggregate(env.AggregateID); ok {
		ks.add(id.Hex(), KeySigningEvent)
	}
	switch b := body.(type) {
	case *domain.DepositDetected:
		ks.hash(b.Ref.TxHash, KeyEVMTx)
	case *domain.DepositConfirmed:
		ks.hash(b.Ref.TxHash, KeyEVMTx)
	case *domain.DepositMinted:
		ks.hash(b.Ref.TxHash, KeyEVMTx)
		ks.hash(b.MintTxHash, KeyEVMTx)
	case *domain.DepositFailed:
		ks.hash(b.Ref.TxHash, KeyEVMTx)
	case *domain.WithdrawalDetected:
		ks.hash(b.Ref.TxHash, KeyEVMTx)
	case *domain.WithdrawalConfirmed:
		ks.hash(b.Ref.TxHash, KeyEVMTx)
	case *domain.WithdrawalBatched:
		ks.hash(b.Ref.TxHash, KeyEVMTx)
		ks.add(BatchKey(b.SequenceID, b.BatchID), KeyBatch)
		ks.hash(b.Leaf, KeyLeaf)
	case *domain.WithdrawalExecuted:
		ks.hash(b.Ref.TxHash, KeyEVMTx)
		ks.hash(b.ClaimTxHash, KeyEVMTx)
	case *domain.WithdrawalFailed:
		ks.hash(b.Ref.TxHash, KeyEVMTx)
	case *domain.WithdrawalToKaspaDetected:
		ks.hash(b.Ref.TxHash, KeyEVMTx)
	case *domain.WithdrawalToKaspaConfirmed:
		ks.hash(b.Ref.TxHash, KeyEVMTx)
	case *domain.WithdrawalToKaspaReorged:
		ks.hash(b.Ref.TxHash, KeyEVMTx)
	case *domain.ObservationReorged:
		ks.hash(b.Ref.TxHash, KeyEVMTx)
	case *domain.ChainLogRejected:
		ks.hash(b.Ref.TxHash, KeyEVMTx)
	case *domain.BatchCreated:
		ks.add(BatchKey(b.Settlement.SequenceID(), b.BatchID), KeyBatch)
		for _, l := range b.Leaves {
			ks.hash(l.Leaf, KeyLeaf)
		}
	case *domain.BatchAnchored:
		ks.add(BatchKey(b.Settlement.SequenceID(), b.BatchID), KeyBatch)
		ks.hash(b.TxHash, KeyEVMTx)
	case *domain.BatchAnchorFailed:
		ks.add(BatchKey(b.Settlement.SequenceID(), b.BatchID), KeyBatch)
		ks.hash(b.TxHash, KeyEVMTx)
	case *domain.ClaimRequested:
		ks.add(BatchKey(b.Settlement.SequenceID(), b.BatchID), KeyBatch)
		ks.hash(b.LeafInfo.Leaf, KeyLeaf)
	case *domain.RefundRequested:
		ks.hash(b.Certificate.Burn.TxHash, KeyEVMTx)
	case *domain.RefundCertificateRefused:
		ks.hash(b.Certificate.Burn.TxHash, KeyEVMTx)
	case *domain.RefundCompleted:
		ks.hash(b.Burn.TxHash, KeyEVMTx)
		ks.hash(b.TxHash, KeyEVMTx)
	case *domain.RefundFailed:
		ks.hash(b.Burn.TxHash, KeyEVMTx)
	case *domain.KaspaDepositDetected:
		ks.hash(b.Outpoint.TxID, KeyKaspaTx)
	case *domain.KaspaDepositConfirmed:
		ks.hash(b.Outpoint.TxID, KeyKaspaTx)
	case *domain.KaspaDepositRefused:
		ks.hash(b.Outpoint.TxID, KeyKaspaTx)
	case *domain.KaspaDepositReorged:
		ks.hash(b.Outpoint.TxID, KeyKaspaTx)
	case *domain.TxIntent:
		ks.hash(b.TxHash, KeyEVMTx)
	case *domain.TxOutcome:
		ks.hash(b.TxHash, KeyEVMTx)
	case *twophase.EventRequested:
		ks.signingHash(b.Event.Source.TxHash, KeyEVMTx)
	case *twophase.PayoutSubmitted:
		ks.signingHash(b.TxID, KeyKaspaTx)
	case *twophase.PayoutOutcome:
		ks.signingHash(b.TxID, KeyKaspaTx)
	}
	return ks.list
}

// NormalizeAuditKey is the form keys are stored and looked up in: trimmed,
// and a hash (64 hex digits, with or without 0x, any case) as lower-case
// 0x-prefixed hex.
func NormalizeAuditKey(s string) string {
	s = strings.TrimSpace(s)
	digits := strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
	if len(digits) != 64 {
		return s
	}
	switch hexCase(digits) {
	case lowerHex:
		if strings.HasPrefix(s, "0x") {
			return s // normalized already, as every hash of an event is: no copy
		}
		return "0x" + digits
	case mixedHex:
		return "0x" + strings.ToLower(digits)
	}
	return s
}

// What hexCase finds a string to be.
const (
	notHex = iota
	lowerHex
	mixedHex // hex digits, some of them upper case
)

// hexCase says whether s is hex digits, and whether any is upper case,
// in one pass over its bytes (a rebuild normalizes millions of keys).
func hexCase(s string) int {
	upper := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case '0' <= c && c <= '9' || 'a' <= c && c <= 'f':
		case 'A' <= c && c <= 'F':
			upper = true
		default:
			return notHex
		}
	}
	if upper {
		return mixedHex
	}
	return lowerHex
}

// auditKeys collects keys, skipping empty ones and repeats.
type auditKeys struct{ list []AuditKey }

func (ks *auditKeys) add(key, kind string) {
	if key != "" {
		ks.addNormal(NormalizeAuditKey(key), kind)
	}
}

// addNormal adds a key already in [NormalizeAuditKey]'s form.
func (ks *auditKeys) addNormal(key, kind string) {
	k := AuditKey{Key: key, Kind: kind}
	for _, have := range ks.list {
		if have == k {
			return
		}
	}
	ks.list = append(ks.list, k)
}

// hash adds a hash; its Hex is already the normal form (0x, lower case),
// which the sink would otherwise check and copy again for every key.
func (ks *auditKeys) hash(h domain.Hash32, kind string) {
	if !h.IsZero() {
		ks.addNormal(h.Hex(), kind)
	}
}

func (ks *auditKeys) signingHash(h twophase.Hash, kind string) {
	if h != (twophase.Hash{}) {
		ks.addNormal(h.Hex(), kind)
	}
}
