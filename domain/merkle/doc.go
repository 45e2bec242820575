// Package merkle builds the withdrawal batch tree that BatchDistributor verifies on chain.
//
// Leaves are the seed's 7-field hash (see [Leaf]); the tree is the sorted-pair layout of
// @openzeppelin/merkle-tree's SimpleMerkleTree with default options, so roots and proofs are
// byte-for-byte those of the JS library, and every proof passes OpenZeppelin's
// MerkleProof.verify (see [Verify]). [BatchLeaf], [BatchRoot], [BatchProofs] and [VerifyClaim]
// apply them to the domain's batches and claims. The package is pure: no I/O, no clocks, no globals beyond
// sentinel errors.
package merkle
