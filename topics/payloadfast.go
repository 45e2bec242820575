package topics

import (
	"encoding/hex"
	"math"
	"unsafe"

	"github.com/bridgelog/bridgelog/domain"
)

// The lifecycle events (deposits and withdrawals) are most of any bridge
// log, and decoding them through msgpack's reflection was the largest
// single cost of a rebuild; a relay's own log adds about as many
// transaction intents and outcomes, and chain scans. decodeLifecycle
// reads exactly the shape [EncodePayload] writes for them (a map of known
// keys; uints, 0x-hex text, decimal amounts, text and bytes) without
// reflection. Anything else it declines, and msgpack's general decoder
// takes the payload, errors included: the fast path only ever agrees with
// msgpack (FuzzLifecyclePayload checks it).

// decodeLifecycle decodes b into v when v is a lifecycle event and b has
// the canonical shape; false leaves v untouched.
func decodeLifecycle(b []byte, v any) bool {
	switch e := v.(type) {
	case *domain.DepositDetected:
		return decodeInto(b, e, depositDetectedField)
	case *domain.DepositConfirmed:
		return decodeInto(b, e, confirmedField)
	case *domain.DepositMinted:
		return decodeInto(b, e, depositMintedField)
	case *domain.DepositFailed:
		return decodeInto(b, e, failedField)
	case *domain.WithdrawalDetected:
		return decodeInto(b, e, withdrawalDetectedField)
	case *domain.WithdrawalConfirmed:
		return decodeInto(b, (*domain.DepositConfirmed)(e), confirmedField)
	case *domain.WithdrawalExecuted:
		return decodeInto(b, e, withdrawalExecutedField)
	case *domain.WithdrawalFailed:
		return decodeInto(b, (*domain.DepositFailed)(e), failedField)
	case *domain.TxIntent:
		return decodeInto(b, e, txIntentField)
	case *domain.TxOutcome:
		return decodeInto(b, e, txOutcomeField)
	case *domain.ChainScanned:
		return decodeInto(b, e, chainScannedField)
	case *domain.WithdrawalBatched:
		return decodeInto(b, e, withdrawalBatchedField)
	case *domain.BatchCreated:
		return decodeInto(b, e, batchCreatedField)
	case *domain.BatchAnchored:
		return decodeInto(b, e, batchAnchoredField)
	case *domain.ClaimRequested:
		return decodeInto(b, e, claimRequestedField)
	}
	return false
}

// decodeInto reads a map of fields into a copy of *dst (msgpack keeps the
// fields a payload does not name) and stores it only if the whole of b
// was read.
func decodeInto[T any](b []byte, dst *T, field func(*reader, *T, string) bool) bool {
	r := reader{b: b}
	v := *dst
	if !decodeMap(&r, &v, field) || r.pos != len(b) {
		return false
	}
	*dst = v
	return true
}

// detected is a DepositDetected or WithdrawalDetected, which differ only
// in the name of the party that locked or burned the amount.
type detected struct {
	ref                        *domain.LogRef
	contract, party, recipient *domain.Address
	blockNumber, onchainID     *uint64
	blockHash                  *domain.Hash32
	amount                     *domain.Amount
	partyKey                   string
}

func (d detected) field(r *reader, k string) bool {
	switch k {
	case "ref":
		return r.logRef(d.ref)
	case "contract":
		return r.hexText(d.contract[:])
	case "block_number":
		return r.uint64(d.blockNumber)
	case "block_hash":
		return r.hexText(d.blockHash[:])
	case "onchain_id":
		return r.uint64(d.onchainID)
	case d.partyKey:
		return r.hexText(d.party[:])
	case "amount":
		return r.amount(d.amount)
	case "recipient":
		return r.hexText(d.recipient[:])
	}
	return false
}

func depositDetectedField(r *reader, e *domain.DepositDetected, k string) bool {
	return detected{&e.Ref, &e.Contract, &e.Depositor, &e.Recipient, &e.BlockNumber, &e.OnChainID,
		&e.BlockHash, &e.Amount, "depositor"}.field(r, k)
}

func withdrawalDetectedField(r *reader, e *domain.WithdrawalDetected, k string) bool {
	return detected{&e.Ref, &e.Contract, &e.Withdrawer, &e.Recipient, &e.BlockNumber, &e.OnChainID,
		&e.BlockHash, &e.Amount, "withdrawer"}.field(r, k)
}

// confirmedField reads DepositConfirmed, and WithdrawalConfirmed converted
// to it (the same fields).
func confirmedField(r *reader, e *domain.DepositConfirmed, k string) bool {
	switch k {
	case "ref":
		return r.logRef(&e.Ref)
	case "at_block":
		return r.uint64(&e.AtBlock)
	case "depth":
		return r.uint64(&e.Confirmation)
	}
	return false
}

// failedField reads DepositFailed, and WithdrawalFailed converted to it.
func failedField(r *reader, e *domain.DepositFailed, k string) bool {
	switch k {
	case "ref":
		return r.logRef(&e.Ref)
	case "reason":
		return r.str(&e.Reason)
	}
	return false
}

func depositMintedField(r *reader, e *domain.DepositMinted, k string) bool {
	switch k {
	case "ref":
		return r.logRef(&e.Ref)
	case "mint_tx_hash":
		return r.hexText(e.MintTxHash[:])
	case "gas_used":
		return r.uint64(&e.GasUsed)
	case "block_number":
		return r.uint64(&e.BlockNumber)
	}
	return false
}

func withdrawalExecutedField(r *reader, e *domain.WithdrawalExecuted, k string) bool {
	switch k {
	case "ref":
		return r.logRef(&e.Ref)
	case "batch_id":
		return r.uint64(&e.BatchID)
	case "claim_tx_hash":
		return r.hexText(e.ClaimTxHash[:])
	case "gas_used":
		return r.uint64(&e.GasUsed)
	case "already_done":
		return r.boolean(&e.AlreadyDone)
	}
	return false
}

func txIntentField(r *reader, e *domain.TxIntent, k string) bool {
	switch k {
	case "purpose":
		return r.str((*string)(&e.Purpose))
	case "subject":
		return r.str(&e.Subject)
	case "chain_id":
		return r.uint64(&e.ChainID)
	case "from":
		return r.hexText(e.From[:])
	case "nonce":
		return r.uint64(&e.Nonce)
	case "gas":
		return r.uint64(&e.Gas)
	case "tx_hash":
		return r.hexText(e.TxHash[:])
	case "raw_tx":
		return r.bytes(&e.RawTx)
	case "gas_fee_cap":
		return r.amount(&e.GasFeeCap)
	case "gas_tip_cap":
		return r.amount(&e.GasTipCap)
	case "attempt":
		return r.nonNegInt(&e.Attempt)
	case "cancel":
		return r.boolean(&e.Cancel)
	}
	return false
}

func txOutcomeField(r *reader, e *domain.TxOutcome, k string) bool {
	switch k {
	case "purpose":
		return r.str((*string)(&e.Purpose))
	case "subject":
		return r.str(&e.Subject)
	case "tx_hash":
		return r.hexText(e.TxHash[:])
	case "nonce":
		return r.uint64(&e.Nonce)
	case "status":
		return r.str((*string)(&e.Status))
	case "gas_used":
		return r.uint64(&e.GasUsed)
	case "block_number":
		return r.uint64(&e.BlockNumber)
	case "reason":
		return r.str(&e.Reason)
	}
	return false
}

func chainScannedField(r *reader, e *domain.ChainScanned, k string) bool {
	switch k {
	case "chain_id":
		return r.uint64(&e.ChainID)
	case "from":
		return r.uint64(&e.From)
	case "to":
		return r.uint64(&e.To)
	case "to_hash":
		return r.hexText(e.ToHash[:])
	case "tip":
		return r.uint64(&e.Tip)
	case "logs":
		return r.nonNegInt(&e.Logs)
	case "prior_hashes":
		return r.hashes(&e.PriorHashes)
	case "window":
		return r.uint64(&e.Window)
	}
	return false
}

func withdrawalBatchedField(r *reader, e *domain.WithdrawalBatched, k string) bool {
	switch k {
	case "ref":
		return r.logRef(&e.Ref)
	case "sequence_id":
		return r.str(&e.SequenceID)
	case "batch_id":
		return r.uint64(&e.BatchID)
	case "leaf_index":
		return r.uint32(&e.LeafIndex)
	case "leaf":
		return r.hexText(e.Leaf[:])
	case "proof":
		return r.hashes(&e.MerkleProof)
	}
	return false
}

func batchCreatedField(r *reader, e *domain.BatchCreated, k string) bool {
	switch k {
	case "settlement":
		return decodeMap(r, &e.Settlement, settlementField)
	case "batch_id":
		return r.uint64(&e.BatchID)
	case "root":
		return r.hexText(e.Root[:])
	case "total_amount":
		return r.amount(&e.TotalAmount)
	case "leaves":
		n, ok := r.boundedArrayLen(1)
		if !ok {
			return false
		}
		leaves := make([]domain.BatchLeaf, n)
		for i := range leaves {
			if !decodeMap(r, &leaves[i], batchLeafField) {
				return false
			}
		}
		e.Leaves = leaves
		return true
	}
	return false
}

func batchAnchoredField(r *reader, e *domain.BatchAnchored, k string) bool {
	switch k {
	case "settlement":
		return decodeMap(r, &e.Settlement, settlementField)
	case "batch_id":
		return r.uint64(&e.BatchID)
	case "root":
		return r.hexText(e.Root[:])
	case "tx_hash":
		return r.hexText(e.TxHash[:])
	case "gas_used":
		return r.uint64(&e.GasUsed)
	case "block_number":
		return r.uint64(&e.BlockNumber)
	}
	return false
}

func claimRequestedField(r *reader, e *domain.ClaimRequested, k string) bool {
	switch k {
	case "settlement":
		return decodeMap(r, &e.Settlement, settlementField)
	case "batch_id":
		return r.uint64(&e.BatchID)
	case "root":
		return r.hexText(e.Root[:])
	case "leaf":
		return decodeMap(r, &e.LeafInfo, batchLeafField)
	case "proof":
		return r.hashes(&e.Proof)
	}
	return false
}

func settlementField(r *reader, s *domain.Settlement, k string) bool {
	switch k {
	case "chain_id":
		return r.uint64(&s.ChainID)
	case "distributor":
		return r.hexText(s.Distributor[:])
	}
	return false
}

func batchLeafField(r *reader, l *domain.BatchLeaf, k string) bool {
	switch k {
	case "index":
		return r.uint32(&l.Index)
	case "withdrawal":
		return r.logRef(&l.Withdrawal)
	case "tx_id":
		return r.uint64(&l.TxID)
	case "funder":
		return r.hexText(l.Funder[:])
	case "recipient":
		return r.hexText(l.Recipient[:])
	case "amount":
		return r.amount(&l.Amount)
	case "leaf":
		return r.hexText(l.Leaf[:])
	}
	return false
}

// decodeMap reads a map of fields into *dst, in place: a payload's own
// (into decodeInto's copy) or a nested one (a failure declines the whole
// payload, so the copy is not kept).
func decodeMap[T any](r *reader, dst *T, field func(*reader, *T, string) bool) bool {
	n, ok := r.mapLen()
	if !ok {
		return false
	}
	for ; n > 0; n-- {
		k, ok := r.key()
		if !ok || !field(r, dst, k) {
			return false
		}
	}
	return true
}

func logRefField(r *reader, ref *domain.LogRef, k string) bool {
	switch k {
	case "chain_id":
		return r.uint64(&ref.ChainID)
	case "tx_hash":
		return r.hexText(ref.TxHash[:])
	case "log_index":
		return r.uint32(&ref.LogIndex)
	}
	return false
}

// logRef reads a nested LogRef map.
func (r *reader) logRef(ref *domain.LogRef) bool { return decodeMap(r, ref, logRefField) }

// boundedArrayLen reads a non-empty array header whose elements, of at least
// minSize bytes each, fit in what is left of the input (an empty or nil
// array is left to msgpack, which tells them apart).
func (r *reader) boundedArrayLen(minSize int) (int, bool) {
	n, err := r.arrayLen()
	if err != nil || n == 0 || n > (len(r.b)-r.pos)/minSize {
		return 0, false
	}
	return n, true
}

// hashes reads a non-empty array of 0x-hex hashes into a new slice.
func (r *reader) hashes(dst *[]domain.Hash32) bool {
	n, ok := r.boundedArrayLen(2 + 2 + 2*len(domain.Hash32{}))
	if !ok {
		return false
	}
	hs := make([]domain.Hash32, n)
	for i := range hs {
		if !r.hexText(hs[i][:]) {
			return false
		}
	}
	*dst = hs
	return true
}

// uint32 reads a non-negative integer that fits in 32 bits.
func (r *reader) uint32(dst *uint32) bool {
	var v uint64
	if !r.uint64(&v) || v > math.MaxUint32 {
		return false // msgpack's own rules decide
	}
	*dst = uint32(v)
	return true
}

// mapLen reads a map header.
func (r *reader) mapLen() (int, bool) {
	n, err := r.containerLen(0x80, 0xde, 0xdf, "a map")
	return n, err == nil
}

// key reads a str-coded map key. The string aliases the input and must
// not outlive the call that switches on it.
func (r *reader) key() (string, bool) {
	c, err := r.byte1()
	if err != nil {
		return "", false
	}
	var n int
	switch {
	case c >= 0xa0 && c <= 0xbf:
		n = int(c & 0x1f)
	case c == 0xd9:
		v, err := r.be(1)
		if err != nil {
			return "", false
		}
		n = int(v)
	default:
		return "", false
	}
	b, ok := r.take(n)
	if !ok || n == 0 {
		return "", false
	}
	return unsafe.String(&b[0], n), true
}

// take returns the next n bytes.
func (r *reader) take(n int) ([]byte, bool) {
	if n < 0 || len(r.b)-r.pos < n {
		return nil, false
	}
	b := r.b[r.pos : r.pos+n]
	r.pos += n
	return b, true
}

// uint64 reads a non-negative integer coded as such (msgpack also
// accepts signed codes and nil here; those are left to it).
func (r *reader) uint64(dst *uint64) bool {
	c, err := r.byte1()
	switch {
	case err != nil:
		return false
	case c <= 0x7f:
		*dst = uint64(c)
		return true
	case c >= 0xcc && c <= 0xcf:
		v, err := r.be(1 << (c - 0xcc))
		*dst = v
		return err == nil
	}
	return false
}

// nonNegInt reads a non-negative integer into an int (signed codes and nil are
// left to msgpack).
func (r *reader) nonNegInt(dst *int) bool {
	var v uint64
	if !r.uint64(&v) || v > math.MaxInt {
		return false
	}
	*dst = int(v)
	return true
}

func (r *reader) boolean(dst *bool) bool {
	c, err := r.byte1()
	if err != nil || c != 0xc2 && c != 0xc3 {
		return false
	}
	*dst = c == 0xc3
	return true
}

// text reads a str or bin value (not nil).
func (r *reader) text() ([]byte, bool) {
	c, err := r.byte1()
	if err != nil {
		return nil, false
	}
	var n uint64
	switch {
	case c >= 0xa0 && c <= 0xbf:
		n = uint64(c & 0x1f)
	case c == 0xd9 || c == 0xc4:
		n, err = r.be(1)
	case c == 0xda || c == 0xc5:
		n, err = r.be(2)
	case c == 0xdb || c == 0xc6:
		n, err = r.be(4)
	default:
		return nil, false
	}
	if err != nil {
		return nil, false
	}
	return r.take(int(n))
}

func (r *reader) str(dst *string) bool {
	b, ok := r.text()
	if ok {
		*dst = string(b)
	}
	return ok
}

// bytes reads a non-empty str or bin value into a new slice (an empty or
// nil one is left to msgpack, which tells them apart).
func (r *reader) bytes(dst *[]byte) bool {
	b, ok := r.text()
	if !ok || len(b) == 0 {
		return false
	}
	*dst = append([]byte(nil), b...)
	return true
}

// hexText reads "0x" and exactly 2*len(dst) hex digits, what
// [domain.Hash32] and [domain.Address] marshal to.
func (r *reader) hexText(dst []byte) bool {
	b, ok := r.text()
	if !ok || len(b) != 2+2*len(dst) || b[0] != '0' || b[1] != 'x' {
		return false
	}
	_, err := hex.Decode(dst, b[2:])
	return err == nil
}

// amount reads a decimal amount; past 19 digits through domain's parser.
func (r *reader) amount(dst *domain.Amount) bool {
	b, ok := r.text()
	if !ok || len(b) == 0 {
		return false
	}
	if len(b) > 19 {
		a, err := domain.ParseAmount(string(b))
		*dst = a
		return err == nil
	}
	var v uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
		v = v*10 + uint64(c-'0')
	}
	*dst = domain.AmountFromUint64(v)
	return true
}
