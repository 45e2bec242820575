// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

/// @title RateLimiter
/// @notice A token bucket, as CCIP's RateLimiter: it holds at most `capacity` and refills at
/// `rate` per second; taking more than it holds reverts. It bounds what a stolen relayer or
/// minter key can move to one bucket's worth plus the refill while the theft lasts.
library RateLimiter {
    /// @dev Two slots: (tokens, lastUpdated) written on every take, (capacity, rate) only read.
    struct Bucket {
        uint128 tokens;
        uint64 lastUpdated;
        uint128 capacity;
        uint128 rate;
    }

    /// @notice `requested` is more than the bucket holds now (`available`); it will hold enough
    /// in `waitSeconds`. The call is not wrong: it is early.
    error RateLimited(uint256 requested, uint256 available, uint256 waitSeconds);
    /// @notice `requested` is more than the bucket can ever hold: it waits until the admin
    /// raises the capacity.
    error RateLimitOverCapacity(uint256 requested, uint256 capacity);
    /// @notice A limit with a zero capacity or rate, or one over 2^128 - 1.
    error BadRateLimit(uint256 capacity, uint256 ratePerSecond);

    /// @notice What the bucket holds now.
    function available(Bucket storage b) internal view returns (uint256) {
        return _refill(b.tokens, b.capacity, b.rate, b.lastUpdated);
    }

    /// @notice Takes `amount` out of the bucket, or reverts with RateLimited or
    /// RateLimitOverCapacity.
    function consume(Bucket storage b, uint256 amount) internal {
        uint256 capacity = b.capacity;
        uint256 rate = b.rate;
        uint256 avail = _refill(b.tokens, capacity, rate, b.lastUpdated);
        if (amount > capacity) revert RateLimitOverCapacity(amount, capacity);
        if (amount > avail) revert RateLimited(amount, avail, (amount - avail + rate - 1) / rate);
        b.tokens = uint128(avail - amount);
        b.lastUpdated = uint64(block.timestamp);
    }

    /// @notice Sets a new capacity and rate. What the bucket holds is first refilled at the old
    /// rate up to now, then cut to the new capacity; a bucket never set starts full.
    function configure(Bucket storage b, uint256 capacity, uint256 ratePerSecond) internal {
        if (capacity == 0 || ratePerSecond == 0 || capacity > type(uint128).max || ratePerSecond > type(uint128).max) {
            revert BadRateLimit(capacity, ratePerSecond);
        }
        uint256 avail = b.lastUpdated == 0 ? capacity : available(b);
        b.tokens = uint128(avail < capacity ? avail : capacity);
        b.lastUpdated = uint64(block.timestamp);
        b.capacity = uint128(capacity);
        b.rate = uint128(ratePerSecond);
    }

    function _refill(uint256 tokens, uint256 capacity, uint256 rate, uint256 lastUpdated) private view returns (uint256) {
        // rate < 2^128 and the elapsed seconds < 2^64: the product cannot overflow.
        uint256 t = tokens + (block.timestamp - lastUpdated) * rate;
        return t < capacity ? t : capacity;
    }
}
