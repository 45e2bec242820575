package kaspa

import (
	"encoding/binary"
	"fmt"

	"github.com/kaspanet/kaspad/domain/consensus/model/externalapi"
	"github.com/kaspanet/kaspad/util"
)

// The scripts this package writes and reads, byte for byte as kaspad
// v0.12.23's txscript builds and classifies them (see the package doc for
// why txscript itself is not linked). Opcode values are those of
// txscript/opcode.go.
const (
	op0             = 0x00
	opData1         = 0x01
	opData32        = 0x20
	opData33        = 0x21
	opPushData1     = 0x4c
	opPushData2     = 0x4d
	opPushData4     = 0x4e
	op1Negate       = 0x4f
	op1             = 0x51
	opEqual         = 0x87
	opBlake2b       = 0xaa
	opCheckSigECDSA = 0xab
	opCheckSig      = 0xac
	opCheckMultiSig = 0xae
)

// scriptPublicKeyVersion is the version of every script PayToAddrScript
// makes.
const scriptPublicKeyVersion = 0

// pushData appends the push of data as txscript's ScriptBuilder.AddData
// encodes it: the smallest push, and single small numbers as their
// opcodes. The builder's bound on an element (520 bytes) is not checked:
// this package pushes keys, hashes, signatures and redeem scripts of at
// most MaxGroupKeys keys, all below it.
func pushData(script, data []byte) []byte {
	n := len(data)
	switch {
	case n == 0 || n == 1 && data[0] == 0:
		return append(script, op0)
	case n == 1 && data[0] <= 16:
		return append(script, op1-1+data[0])
	case n == 1 && data[0] == 0x81:
		return append(script, op1Negate)
	case n < opPushData1:
		script = append(script, opData1-1+byte(n))
	case n <= 0xff:
		script = append(script, opPushData1, byte(n))
	case n <= 0xffff:
		script = binary.LittleEndian.AppendUint16(append(script, opPushData2), uint16(n))
	default:
		script = binary.LittleEndian.AppendUint32(append(script, opPushData4), uint32(n))
	}
	return append(script, data...)
}

// smallInt is the opcode that pushes n, 1..16 (AddInt64 for such n).
func smallInt(n int) byte { return op1 - 1 + byte(n) }

// multisigScript is the redeem script over keys in the order given:
// OP_M, the keys, OP_N, OP_CHECKMULTISIG. keys has 1..MaxGroupKeys
// 32-byte keys and 1 <= m <= len(keys) (sortedGroupKeys checked them).
func multisigScript(keys [][]byte, m int) []byte {
	script := make([]byte, 0, 3+len(keys)*(1+PublicKeySize))
	script = append(script, smallInt(m))
	for _, k := range keys {
		script = pushData(script, k)
	}
	return append(script, smallInt(len(keys)), opCheckMultiSig)
}

// multisigSigOps is what GetPreciseSigOpCount counts for a P2SH input
// that spends multisigScript over n keys: an OP_CHECKMULTISIG right after
// OP_N counts N, and the redeem script has no other signature operation.
func multisigSigOps(n int) int { return n }

// signatureScript spends a P2SH multisig: the signatures, in the order of
// the keys they belong to in the redeem script, then the redeem script
// (as kaspawallet's ExtractTransaction builds it).
func signatureScript(sigs [][]byte, redeem []byte) []byte {
	script := make([]byte, 0, len(sigs)*(1+SignatureSize)+3+len(redeem))
	for _, s := range sigs {
		script = pushData(script, s)
	}
	return pushData(script, redeem)
}

// payToAddrScript is txscript.PayToAddrScript for the address kinds
// util.DecodeAddress returns: pay to a Schnorr key (OP_DATA_32 key
// OP_CHECKSIG), to an ECDSA key (OP_DATA_33 key OP_CHECKSIGECDSA), or to
// a script hash (OP_BLAKE2B OP_DATA_32 hash OP_EQUAL).
func payToAddrScript(a util.Address) (*externalapi.ScriptPublicKey, error) {
	var script []byte
	switch a := a.(type) {
	case *util.AddressPublicKey:
		script = append(pushData(nil, a.ScriptAddress()), opCheckSig)
	case *util.AddressPublicKeyECDSA:
		script = append(pushData(nil, a.ScriptAddress()), opCheckSigECDSA)
	case *util.AddressScriptHash:
		script = append(pushData([]byte{opBlake2b}, a.ScriptAddress()), opEqual)
	default:
		return nil, fmt.Errorf("%w: no payment script for a %T address", ErrNetwork, a)
	}
	return &externalapi.ScriptPublicKey{Script: script, Version: scriptPublicKeyVersion}, nil
}

// scriptClass is txscript's ScriptClass for the standard kinds.
type scriptClass uint8

const (
	nonStandardScript scriptClass = iota
	payToPubKeyScript
	payToPubKeyECDSAScript
	payToScriptHashScript
)

// classifyScript is txscript.GetScriptClass. txscript parses the script
// and matches the opcodes: OP_DATA_32 OP_CHECKSIG, OP_DATA_33
// OP_CHECKSIGECDSA, OP_BLAKE2B OP_DATA_32 OP_EQUAL. A push of a fixed
// length takes exactly that many bytes, so each of those parses is one
// byte pattern of one length; anything else, unparsable scripts included,
// is non-standard. None of the three is unspendable (starts with
// OP_RETURN), so txscript.IsUnspendable is false for every standard
// script.
func classifyScript(s []byte) scriptClass {
	switch {
	case len(s) == 1+32+1 && s[0] == opData32 && s[33] == opCheckSig:
		return payToPubKeyScript
	case len(s) == 1+33+1 && s[0] == opData33 && s[34] == opCheckSigECDSA:
		return payToPubKeyECDSAScript
	case len(s) == 1+1+32+1 && s[0] == opBlake2b && s[1] == opData32 && s[34] == opEqual:
		return payToScriptHashScript
	}
	return nonStandardScript
}
