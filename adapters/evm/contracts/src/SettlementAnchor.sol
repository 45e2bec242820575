// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";

/// @title SettlementAnchor
/// @notice Stores one merkle root per withdrawal batch. Batch ids are strictly sequential
/// (1, 2, 3, ...) so a gap or a replayed anchor is visible on chain, not only in a database.
abstract contract SettlementAnchor is AccessControl {
    bytes32 public constant RELAYER_ROLE = keccak256("RELAYER_ROLE");

    /// @notice Id of the last anchored batch (0 before the first).
    uint256 public lastBatchId;
    /// @notice Merkle root per batch id; zero for a batch not anchored.
    mapping(uint256 batchId => bytes32 root) public roots;

    event RootAnchored(uint256 indexed batchId, bytes32 root);

    /// @notice Thrown when `got` is not the next batch id.
    error BatchOutOfSequence(uint256 expected, uint256 got);
    /// @notice Thrown for a zero root, which would read as "not anchored".
    error EmptyRoot();

    /// @notice Anchors `root` as batch `batchId`, which must be lastBatchId + 1.
    function anchor(uint256 batchId, bytes32 root) external onlyRole(RELAYER_ROLE) {
        uint256 expected = lastBatchId + 1;
        if (batchId != expected) revert BatchOutOfSequence(expected, batchId);
        if (root == bytes32(0)) revert EmptyRoot();
        roots[batchId] = root;
        lastBatchId = batchId;
        emit RootAnchored(batchId, root);
    }
}
