// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";
import {RateLimiter} from "./RateLimiter.sol";

/// @title AdminRateLimited
/// @notice One RateLimiter bucket, set at deployment and changed by the admin role only. The
/// contract that inherits it calls _consumeRateLimit on what it moves (mints, payouts).
abstract contract AdminRateLimited is AccessControl {
    using RateLimiter for RateLimiter.Bucket;

    RateLimiter.Bucket private _bucket;

    /// @notice The limit was set: the bucket holds at most `capacity` and refills at
    /// `ratePerSecond`.
    event RateLimitSet(uint256 capacity, uint256 ratePerSecond);

    constructor(uint256 capacity, uint256 ratePerSecond) {
        _setRateLimit(capacity, ratePerSecond);
    }

    /// @notice Sets the limit; zero capacity or rate reverts with BadRateLimit.
    function setRateLimit(uint256 capacity, uint256 ratePerSecond) external onlyRole(DEFAULT_ADMIN_ROLE) {
        _setRateLimit(capacity, ratePerSecond);
    }

    /// @notice What may be moved now. (Three one-value views rather than one of three values:
    /// the two contracts' Go bindings share a package and would both declare its output type.)
    function rateLimitAvailable() external view returns (uint256) {
        return _bucket.available();
    }

    /// @notice The most the bucket holds.
    function rateLimitCapacity() external view returns (uint256) {
        return _bucket.capacity;
    }

    /// @notice What the bucket refills per second.
    function rateLimitPerSecond() external view returns (uint256) {
        return _bucket.rate;
    }

    function _consumeRateLimit(uint256 amount) internal {
        _bucket.consume(amount);
    }

    function _setRateLimit(uint256 capacity, uint256 ratePerSecond) private {
        _bucket.configure(capacity, ratePerSecond);
        emit RateLimitSet(capacity, ratePerSecond);
    }
}
