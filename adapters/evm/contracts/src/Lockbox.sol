// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

/// @title Lockbox
/// @notice Lock side of the bridge: native ETH locked here is minted as BridgeToken on the
/// execution side. The same pool pays withdrawals (see BatchDistributor).
abstract contract Lockbox {
    /// @notice Id of the last deposit; ids start at 1 and have no gaps.
    uint256 public depositCount;

    event DepositLocked(uint256 indexed id, address indexed depositor, uint256 amount, address recipient);

    /// @notice Locks msg.value for `recipient` on the execution side.
    function lock(address recipient) external payable returns (uint256 id) {
        require(msg.value > 0, "zero amount");
        require(recipient != address(0), "zero recipient");
        id = ++depositCount;
        emit DepositLocked(id, msg.sender, msg.value, recipient);
    }

    /// @notice ETH locked by deposits and not yet paid out by claims. It is the contract's
    /// balance rather than a stored counter: the contract accepts ETH only through lock (no
    /// receive/fallback), so the two agree, and reading the balance saves a claim 5,000 gas of
    /// counter updates. ETH forced in (selfdestruct, coinbase) only adds to the pool.
    function totalLocked() public view returns (uint256) {
        return address(this).balance;
    }

    /// @dev Pays `amount` out of the locked pool; callers must have checked authorisation and
    /// recorded the claim before calling (checks-effects-interactions).
    function _release(address recipient, uint256 amount) internal {
        require(address(this).balance >= amount, "insufficient locked balance");
        bool ok;
        // A bare call: no calldata, no return data copied (Solidity would copy whatever the
        // recipient returns).
        assembly ("memory-safe") {
            ok := call(gas(), recipient, amount, 0, 0, 0, 0)
        }
        require(ok, "transfer failed");
    }
}
