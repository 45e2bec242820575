package domain

import "fmt"

// TypeWalletRetired is the event type of a wallet's retirement.
const TypeWalletRetired = "relay.wallet_retired"

// WalletRetired: a claim or mint wallet being rotated out (its config
// entry marked retiring) has nothing left in flight on ChainID: every
// intent it signed has its outcome and every nonce below NextNonce is
// mined. The relay sends nothing more from it; its successor took its
// new requests from the moment it was marked.
type WalletRetired struct {
	ChainID   uint64  `msgpack:"chain_id" json:"chainId"`
	Address   Address `msgpack:"address" json:"address"`
	NextNonce uint64  `msgpack:"next_nonce" json:"nextNonce"`
}

func (e WalletRetired) EventType() string { return TypeWalletRetired }
func (e WalletRetired) SourceKey() string {
	return fmt.Sprintf("%s/retired/%d", e.AggregateID(), e.NextNonce)
}
func (e WalletRetired) AggregateID() string {
	return fmt.Sprintf("wallet:%d/%s", e.ChainID, e.Address.Hex())
}
