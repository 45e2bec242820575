// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {MerkleProof} from "@openzeppelin/contracts/utils/cryptography/MerkleProof.sol";
import {Lockbox} from "./Lockbox.sol";
import {SettlementAnchor} from "./SettlementAnchor.sol";
import {AdminRateLimited} from "./AdminRateLimited.sol";

/// @title BatchDistributor
/// @notice The lock-side contract: takes deposits (Lockbox), stores batch roots
/// (SettlementAnchor) and pays withdrawals burned on the execution side against a merkle proof.
/// One contract rather than three so a claim reads its root and pays from its pool without
/// cross-contract calls. What claims pay is rate limited (AdminRateLimited): a stolen relayer key
/// that anchors a forged root takes at most the bucket's capacity plus its refill.
contract BatchDistributor is Lockbox, SettlementAnchor, AdminRateLimited {
    /// @notice Leaves already paid. The leaf binds chain, contract, batch and txId, so each
    /// leaf pays at most once.
    mapping(bytes32 leaf => bool) public processedLeaves;

    event Claimed(uint256 indexed batchId, uint256 indexed txId, bytes32 leaf, address recipient, uint256 amount);

    constructor(address admin, address relayer, uint256 claimCapacity, uint256 claimRatePerSecond)
        AdminRateLimited(claimCapacity, claimRatePerSecond)
    {
        _grantRole(DEFAULT_ADMIN_ROLE, admin);
        _grantRole(RELAYER_ROLE, relayer);
    }

    /// @notice The leaf for a withdrawal, as the off-chain batcher computes it.
    function leafOf(uint256 batchId, uint256 txId, address funder, address recipient, uint256 amount)
        public
        view
        returns (bytes32 leaf)
    {
        // Same bytes as keccak256(abi.encode(block.chainid, address(this), batchId, txId,
        // funder, recipient, amount)), hashed in place above the free memory pointer: a claim
        // pays for no memory growth and no copy.
        assembly ("memory-safe") {
            let m := mload(0x40)
            mstore(m, chainid())
            mstore(add(m, 0x20), address())
            mstore(add(m, 0x40), batchId)
            mstore(add(m, 0x60), txId)
            mstore(add(m, 0x80), funder)
            mstore(add(m, 0xa0), recipient)
            mstore(add(m, 0xc0), amount)
            leaf := keccak256(m, 0xe0)
        }
    }

    /// @notice Pays `amount` to `recipient` for withdrawal `txId` of batch `batchId`.
    /// Anyone may submit: the proof is the authorisation and the recipient is in the leaf.
    /// @param funder the withdrawer who burned on the execution side (bound into the leaf).
    function claim(
        uint256 batchId,
        uint256 txId,
        address funder,
        address recipient,
        uint256 amount,
        bytes32[] calldata proof
    ) external {
        bytes32 root = roots[batchId];
        require(root != bytes32(0), "unknown batch");
        bytes32 leaf = leafOf(batchId, txId, funder, recipient, amount);
        require(!processedLeaves[leaf], "already processed");
        require(MerkleProof.verifyCalldata(proof, root, leaf), "invalid proof");
        processedLeaves[leaf] = true;
        _consumeRateLimit(amount);
        emit Claimed(batchId, txId, leaf, recipient, amount);
        _release(recipient, amount);
    }
}
