package kaspa

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/kaspanet/kaspad/util"

	"github.com/bridgelog/bridgelog/domain/twophase"
)

// A deposit address binds an EVM recipient to KAS sent to the group: the
// redeem script is
//
//	OP_DATA_20 <recipient> OP_DROP  <the group's M-of-N multisig script>
//
// and the address is its P2SH. The recipient is data the script drops:
// spending takes exactly what spending the group's own address takes (M
// signatures in key order, then the redeem script), so the signers can
// sweep a deposit with their keys. The pinned kaspad refuses a payload in
// a native transaction, hence an address per recipient rather than a
// recipient in the deposit's payload.
//
// A P2SH script public key is a hash: from a deposit seen on chain alone
// no one can tell that it is the group's, nor for whom. The relay
// therefore watches the addresses of the recipients registered on its log
// (see the package kaspanode's DepositSource and OPERATIONS.md, "KAS in").

// RecipientSize is the size of an EVM recipient in a deposit script.
const RecipientSize = 20

const (
	opData20 = 0x14
	opDrop   = 0x75
)

// ErrRecipient: a deposit recipient that is not 20 bytes, or the zero
// address (which no one controls: KAS minted there would be lost).
var ErrRecipient = errors.New("invalid deposit recipient")

// Deposits are the deposit addresses of one group: each recipient's
// redeem script and address, and the test of whether a transaction
// spends from the group.
type Deposits struct {
	network string
	group   multisig
}

// NewDeposits makes the deposit addresses of the M-of-N group over keys
// on network (the same group GroupScript and NewRules make).
func NewDeposits(network string, keys [][]byte, m int) (*Deposits, error) {
	ms, err := newMultisig(network, keys, m)
	if err != nil {
		return nil, err
	}
	return &Deposits{network: network, group: ms}, nil
}

// Network is the group's network.
func (d *Deposits) Network() string { return d.network }

// GroupAddress is the group's own P2SH address (no recipient).
func (d *Deposits) GroupAddress() util.Address { return d.group.address }

// GroupLockScript is the script public key of GroupAddress.
func (d *Deposits) GroupLockScript() []byte { return bytes.Clone(d.group.lock.Script) }

// RedeemScript is the deposit redeem script of recipient.
func (d *Deposits) RedeemScript(recipient [RecipientSize]byte) ([]byte, error) {
	if recipient == ([RecipientSize]byte{}) {
		return nil, fmt.Errorf("%w: the zero address", ErrRecipient)
	}
	return depositRedeem(recipient[:], d.group.redeem), nil
}

func depositRedeem(recipient, groupRedeem []byte) []byte {
	s := make([]byte, 0, 2+RecipientSize+len(groupRedeem))
	s = append(pushData(s, recipient), opDrop)
	return append(s, groupRedeem...)
}

// Address is recipient's deposit address and its script public key
// (version 0, as PayToAddrScript makes it).
func (d *Deposits) Address(recipient [RecipientSize]byte) (util.Address, []byte, error) {
	redeem, err := d.RedeemScript(recipient)
	if err != nil {
		return nil, nil, err
	}
	p, _ := Params(d.network) // known: newMultisig checked it
	a, err := util.NewAddressScriptHash(redeem, p.Prefix)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %v", ErrRecipient, err)
	}
	spk, err := payToAddrScript(a)
	if err != nil {
		return nil, nil, err
	}
	return a, spk.Script, nil
}

// SpendsFromGroup says whether a signature script spends from the group:
// a push-only script whose last push is the group's redeem script or a
// deposit redeem script of the group. Outputs of such a transaction to
// the group are its own change or sweeps, never deposits. A script that
// only ends with those bytes (inside a longer push) is not one.
func (d *Deposits) SpendsFromGroup(sigScript []byte) bool {
	last, ok := lastPush(sigScript)
	if !ok {
		return false
	}
	g := d.group.redeem
	if bytes.Equal(last, g) {
		return true
	}
	n := 2 + RecipientSize
	return len(last) == n+len(g) && last[0] == opData20 && last[1+RecipientSize] == opDrop && bytes.Equal(last[n:], g)
}

// lastPush walks a push-only script and returns the data of its last
// push; false for an empty script, a non-push opcode or a push past the
// end.
func lastPush(s []byte) ([]byte, bool) {
	var last []byte
	found := false
	for i := 0; i < len(s); {
		op := s[i]
		i++
		var n int
		switch {
		case op == op0:
			n = 0
		case op >= opData1 && op < opPushData1:
			n = int(op)
		case op == opPushData1:
			if i+1 > len(s) {
				return nil, false
			}
			n, i = int(s[i]), i+1
		case op == opPushData2:
			if i+2 > len(s) {
				return nil, false
			}
			n, i = int(binary.LittleEndian.Uint16(s[i:])), i+2
		case op == opPushData4:
			if i+4 > len(s) {
				return nil, false
			}
			n, i = int(binary.LittleEndian.Uint32(s[i:])), i+4
		case op == op1Negate || op >= op1 && op <= op1+15:
			last, found = nil, true
			continue
		default:
			return nil, false
		}
		if n < 0 || i+n > len(s) {
			return nil, false
		}
		last, found, i = s[i:i+n], true, i+n
	}
	return last, found
}

// DepositsForGroup makes the deposit addresses of a configured group: its
// network, its members' payout keys and its quorum as the threshold.
func DepositsForGroup(g twophase.Group) (*Deposits, error) {
	return NewDeposits(g.Network, payoutKeys(g), g.Quorum)
}
