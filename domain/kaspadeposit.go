package domain

import (
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
)

// Event type names of KAS coming in: deposits on Kaspa to the group's
// deposit addresses, seen by the relay's Kaspa indexer. Part of the log
// format.
const (
	TypeKaspaDepositAddressIssued = "kaspa.deposit_address_issued"
	TypeKaspaDepositDetected      = "kaspa_deposit.detected"
	TypeKaspaDepositConfirmed     = "kaspa_deposit.confirmed"
	TypeKaspaDepositRefused       = "kaspa_deposit.refused"
	TypeKaspaDepositReorged       = "kaspa_deposit.reorged"
	TypeKaspaChainScanned         = "kaspa_chain.scanned"
)

// Why a deposit is recorded and never minted.
const (
	// KaspaRefusalNoRecipient: KAS sent to the group's own address, which
	// names no recipient.
	KaspaRefusalNoRecipient = "no_recipient"
	// KaspaRefusalBelowMinimum: less than the configured minimum.
	KaspaRefusalBelowMinimum = "below_minimum"
)

// KaspaOutpoint is a Kaspa transaction output: the deposit's identity.
type KaspaOutpoint struct {
	TxID  Hash32 `msgpack:"tx_id" json:"txId"`
	Index uint32 `msgpack:"index" json:"index"`
}

// Key is "<txid hex>:<index>", the transaction id as Kaspa writes it
// (lower-case hex, no 0x).
func (o KaspaOutpoint) Key() string {
	return hex.EncodeToString(o.TxID[:]) + ":" + strconv.FormatUint(uint64(o.Index), 10)
}

// ParseKaspaOutpoint reads back what Key writes.
func ParseKaspaOutpoint(s string) (KaspaOutpoint, error) {
	var o KaspaOutpoint
	id, idx, ok := strings.Cut(s, ":")
	n, err := strconv.ParseUint(idx, 10, 32)
	if !ok || err != nil || len(id) != 64 {
		return o, fmt.Errorf("%w: kaspa outpoint %q: want <64 hex digits>:<index>", ErrInvalidValue, s)
	}
	if _, err := hex.Decode(o.TxID[:], []byte(id)); err != nil {
		return o, fmt.Errorf("%w: kaspa outpoint %q: %v", ErrInvalidValue, s, err)
	}
	o.Index = uint32(n)
	return o, nil
}

// KaspaDepositID is the aggregate id of the deposit at outpoint o.
func KaspaDepositID(o KaspaOutpoint) string { return "kaspa_deposit:" + o.Key() }

// KaspaChainStreamID is the aggregate id of the Kaspa indexer's cursor on
// a network ("kaspa-mainnet", ...).
func KaspaChainStreamID(network string) string { return "kaspa_chain:" + network }

// KaspaDepositAddressIssued: the deposit address of Recipient under the
// group whose own address is GroupAddress was handed out; the relay
// watches it from then on. Issuing the same address again is the same
// fact.
type KaspaDepositAddressIssued struct {
	Network      string  `msgpack:"network" json:"network"`
	GroupAddress string  `msgpack:"group_address" json:"groupAddress"`
	Recipient    Address `msgpack:"recipient" json:"recipient"`
	Address      string  `msgpack:"address" json:"address"`
	IssuedBy     string  `msgpack:"issued_by,omitempty" json:"issuedBy,omitempty"`
}

func (e KaspaDepositAddressIssued) EventType() string { return TypeKaspaDepositAddressIssued }
func (e KaspaDepositAddressIssued) SourceKey() string { return e.AggregateID() + "/issued" }
func (e KaspaDepositAddressIssued) AggregateID() string {
	return "kaspa_deposit_address:" + e.Address
}

// KaspaDepositDetected: an output paying a deposit address of the group
// (or the group's own address) was accepted by chain block Block, whose
// DAA score is DAAScore. Refusal, when set, says why it will never be
// minted. A deposit seen again in another chain block (after that block
// left the virtual chain) is a new sighting there.
type KaspaDepositDetected struct {
	Outpoint  KaspaOutpoint `msgpack:"outpoint" json:"outpoint"`
	Amount    uint64        `msgpack:"sompi" json:"sompi"`
	Recipient Address       `msgpack:"recipient" json:"recipient"` // zero: none
	Block     Hash32        `msgpack:"block" json:"block"`
	DAAScore  uint64        `msgpack:"daa_score" json:"daaScore"`
	Refusal   string        `msgpack:"refusal,omitempty" json:"refusal,omitempty"`
}

func (e KaspaDepositDetected) EventType() string { return TypeKaspaDepositDetected }
func (e KaspaDepositDetected) SourceKey() string {
	return e.AggregateID() + "/detected@" + e.Block.Hex()
}
func (e KaspaDepositDetected) AggregateID() string { return KaspaDepositID(e.Outpoint) }

// KaspaDepositConfirmed: the deposit's accepting block Block was at least
// Depth DAA score below the virtual (VirtualDAAScore) and still on the
// virtual chain: the wrapped KAS may be minted.
type KaspaDepositConfirmed struct {
	Outpoint        KaspaOutpoint `msgpack:"outpoint" json:"outpoint"`
	Block           Hash32        `msgpack:"block" json:"block"`
	VirtualDAAScore uint64        `msgpack:"virtual_daa_score" json:"virtualDaaScore"`
	Depth           uint64        `msgpack:"depth" json:"depth"`
}

func (e KaspaDepositConfirmed) EventType() string { return TypeKaspaDepositConfirmed }
func (e KaspaDepositConfirmed) SourceKey() string {
	return e.AggregateID() + "/confirmed@" + e.Block.Hex()
}
func (e KaspaDepositConfirmed) AggregateID() string { return KaspaDepositID(e.Outpoint) }

// KaspaDepositRefused: a deposit with a Refusal reached the depth: it is
// recorded for the operators, never minted, and stays the group's to
// return (the admin path).
type KaspaDepositRefused struct {
	Outpoint        KaspaOutpoint `msgpack:"outpoint" json:"outpoint"`
	Block           Hash32        `msgpack:"block" json:"block"`
	Reason          string        `msgpack:"reason" json:"reason"`
	VirtualDAAScore uint64        `msgpack:"virtual_daa_score" json:"virtualDaaScore"`
}

func (e KaspaDepositRefused) EventType() string   { return TypeKaspaDepositRefused }
func (e KaspaDepositRefused) SourceKey() string   { return e.AggregateID() + "/refused@" + e.Block.Hex() }
func (e KaspaDepositRefused) AggregateID() string { return KaspaDepositID(e.Outpoint) }

// KaspaDepositReorged: the chain block that accepted the deposit left the
// virtual chain. WasFinal: it had been confirmed (or refused) already, a
// reorganisation deeper than the depth.
type KaspaDepositReorged struct {
	Outpoint KaspaOutpoint `msgpack:"outpoint" json:"outpoint"`
	Block    Hash32        `msgpack:"block" json:"block"`
	WasFinal bool          `msgpack:"was_final,omitempty" json:"wasFinal,omitempty"`
}

func (e KaspaDepositReorged) EventType() string   { return TypeKaspaDepositReorged }
func (e KaspaDepositReorged) SourceKey() string   { return e.AggregateID() + "/reorged/" + e.Block.Hex() }
func (e KaspaDepositReorged) AggregateID() string { return KaspaDepositID(e.Outpoint) }

// KaspaChainScanned: the Kaspa indexer applied the virtual chain's change
// from chain block From (zero: its start) to chain block To, its Seq-th
// scan; To is the cursor the next scan starts from.
type KaspaChainScanned struct {
	Network         string `msgpack:"network" json:"network"`
	Seq             uint64 `msgpack:"seq" json:"seq"`
	From            Hash32 `msgpack:"from" json:"from"`
	To              Hash32 `msgpack:"to" json:"to"`
	VirtualDAAScore uint64 `msgpack:"virtual_daa_score" json:"virtualDaaScore"`
	Added           int    `msgpack:"added" json:"added"`
	Removed         int    `msgpack:"removed" json:"removed"`
	Deposits        int    `msgpack:"deposits" json:"deposits"`
}

func (e KaspaChainScanned) EventType() string { return TypeKaspaChainScanned }
func (e KaspaChainScanned) SourceKey() string {
	return fmt.Sprintf("%s/scanned/%d/%s", e.AggregateID(), e.Seq, e.To.Hex())
}
func (e KaspaChainScanned) AggregateID() string { return KaspaChainStreamID(e.Network) }
