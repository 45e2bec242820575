package merkle

import (
	"errors"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// ErrUint256Range is returned for a value that is nil, negative or wider than 256 bits, which
// abi.encode could not have produced.
var ErrUint256Range = errors.New("merkle: value out of uint256 range")

// leafWords is the number of 32-byte words abi.encode emits for the seven static leaf fields.
const leafWords = 7

// Leaf returns keccak256(abi.encode(uint256 chainID, address contract, uint256 batchID,
// uint256 txID, address funder, address recipient, uint256 amount)), the leaf BatchDistributor
// computes in claim. The encoding is written by hand (7 static words) because it is on the hot
// path of batching and has no dynamic parts.
func Leaf(chainID *big.Int, contract common.Address, batchID, txID *big.Int, funder, recipient common.Address, amount *big.Int) (common.Hash, error) {
	var buf [leafWords * 32]byte
	for _, w := range [...]struct {
		name string
		word int
		v    *big.Int
	}{{"chainId", 0, chainID}, {"batchId", 2, batchID}, {"txId", 3, txID}, {"amount", 6, amount}} {
		if err := putUint256(buf[w.word*32:(w.word+1)*32], w.v); err != nil {
			return common.Hash{}, fmt.Errorf("%s: %w", w.name, err)
		}
	}
	copy(buf[1*32+12:2*32], contract[:])
	copy(buf[4*32+12:5*32], funder[:])
	copy(buf[5*32+12:6*32], recipient[:])
	return crypto.Keccak256Hash(buf[:]), nil
}

func putUint256(dst []byte, v *big.Int) error {
	switch {
	case v == nil:
		return fmt.Errorf("%w: nil", ErrUint256Range)
	case v.Sign() < 0:
		return fmt.Errorf("%w: negative %s", ErrUint256Range, v)
	case v.BitLen() > 256:
		return fmt.Errorf("%w: %d bits", ErrUint256Range, v.BitLen())
	}
	v.FillBytes(dst)
	return nil
}
