// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";
import {AdminRateLimited} from "./AdminRateLimited.sol";

/// @title BridgeToken
/// @notice Execution-side token: minted by relayers for deposits locked on the lock side,
/// burned by holders to withdraw there, or to be paid on Kaspa by the signing group. What mint and
/// refund create is rate limited (AdminRateLimited): a stolen relayer key mints at most the
/// bucket's capacity plus its refill.
contract BridgeToken is ERC20, AccessControl, AdminRateLimited {
    bytes32 public constant RELAYER_ROLE = keccak256("RELAYER_ROLE");

    /// @notice Deposit keys already minted; a second mint for the same deposit reverts.
    mapping(bytes32 depositKey => bool) public minted;
    /// @notice Id of the last withdrawal; ids start at 1 and have no gaps.
    uint256 public withdrawalCount;
    /// @notice Id of the last withdrawal to Kaspa; its own sequence (the signers' stream
    /// nonce), starting at 1 and without gaps.
    uint256 public kaspaWithdrawalCount;

    /// @notice Wei of this token per sompi: the token has 18 decimals, Kaspa 8.
    uint256 public constant WEI_PER_SOMPI = 1e10;
    /// @notice Longest Kaspa address accepted (prefix, colon and payload).
    uint256 public constant MAX_KASPA_RECIPIENT_BYTES = 100;
    /// @notice Bech32 payload lengths of the addresses a payout can go to: 61 characters for a
    /// Schnorr P2PK or a P2SH address (version byte and 32 bytes, checksum included), 63 for an
    /// ECDSA P2PK address (version byte and 33 bytes).
    uint256 public constant KASPA_PAYLOAD_SHORT = 61;
    uint256 public constant KASPA_PAYLOAD_LONG = 63;
    /// @dev Bit c is set for each character c of bech32's alphabet "qpzry9x8gf2tvdw0s3jn54khce6mua7l".
    uint256 private constant BECH32_CHARSET_MASK = 0x7ff7dfa0000000003fd000000000000;

    /// @notice Least burn toward Kaspa, in sompi: a payout smaller than this is one no Kaspa node
    /// relays (its KIP-9 storage mass is over the standard limit), so it is refused at burn time.
    uint256 public immutable minKaspaSompi;
    /// @notice The Kaspa network's address prefix, without the colon ("kaspa", "kaspatest",
    /// "kaspadev", "kaspasim"): a recipient of another network is refused at burn time.
    string public kaspaPrefix;
    /// @notice Refund keys already minted back; a second refund for the same key reverts.
    mapping(bytes32 refundKey => bool) public refunded;

    /// @notice A burn toward Kaspa must be a whole number of sompi: it is never rounded.
    error AmountNotWholeSompi(uint256 amount);
    /// @notice The Kaspa recipient's payload is not of a payable address's length (61 or 63
    /// characters after the prefix), or the whole recipient is longer than MAX_KASPA_RECIPIENT_BYTES.
    error BadKaspaRecipient(uint256 length);
    /// @notice The burn toward Kaspa is under minKaspaSompi (both in wei here).
    error KaspaAmountBelowMinimum(uint256 amount, uint256 minimum);
    /// @notice The Kaspa recipient does not start with kaspaPrefix and a colon.
    error WrongKaspaPrefix(string recipient);
    /// @notice The character at `position` of the Kaspa recipient is not one of bech32's, or the
    /// payload's first character names no payable address version.
    error BadKaspaAddressCharacter(uint256 position);

    event DepositMinted(bytes32 indexed depositKey, address indexed to, uint256 amount);
    event WithdrawalBurned(uint256 indexed id, address indexed withdrawer, uint256 amount, address recipient);
    event WithdrawalToKaspa(uint256 indexed id, address indexed withdrawer, uint256 amount, string kaspaRecipient);
    event Refunded(bytes32 indexed refundKey, address indexed burner, uint256 amount);

    constructor(
        string memory name_,
        string memory symbol_,
        address admin,
        address relayer,
        uint256 minKaspaSompi_,
        string memory kaspaPrefix_,
        uint256 mintCapacity,
        uint256 mintRatePerSecond
    ) ERC20(name_, symbol_) AdminRateLimited(mintCapacity, mintRatePerSecond) {
        uint256 p = bytes(kaspaPrefix_).length;
        require(minKaspaSompi_ > 0, "zero kaspa minimum");
        require(p > 0 && p + 1 + KASPA_PAYLOAD_LONG <= MAX_KASPA_RECIPIENT_BYTES, "bad kaspa prefix");
        minKaspaSompi = minKaspaSompi_;
        kaspaPrefix = kaspaPrefix_;
        _grantRole(DEFAULT_ADMIN_ROLE, admin);
        _grantRole(RELAYER_ROLE, relayer);
    }

    /// @notice Mints `amount` to `to` for the deposit identified by `depositKey`, once.
    function mint(address to, uint256 amount, bytes32 depositKey) external onlyRole(RELAYER_ROLE) {
        require(!minted[depositKey], "already minted");
        minted[depositKey] = true;
        _consumeRateLimit(amount);
        _mint(to, amount);
        emit DepositMinted(depositKey, to, amount);
    }

    /// @notice Burns `amount` of the caller's tokens to be paid to `recipient` on the lock side.
    function burn(uint256 amount, address recipient) external returns (uint256 id) {
        require(amount > 0, "zero amount");
        require(recipient != address(0), "zero recipient");
        _burn(msg.sender, amount);
        id = ++withdrawalCount;
        emit WithdrawalBurned(id, msg.sender, amount, recipient);
    }

    /// @notice Burns `amount` of the caller's tokens to be paid to `kaspaRecipient` on Kaspa,
    /// amount / WEI_PER_SOMPI sompi. What can never be paid is refused here: an amount under
    /// minKaspaSompi, a recipient not of the form kaspaPrefix ":" and a bech32 payload of a P2PK or
    /// P2SH address's length. The checksum is not verified on chain; the signers verify the whole
    /// address and certify a refusal of one that fails, which the relay refunds.
    function burnToKaspa(uint256 amount, string calldata kaspaRecipient) external returns (uint256 id) {
        require(amount > 0, "zero amount");
        if (amount % WEI_PER_SOMPI != 0) revert AmountNotWholeSompi(amount);
        uint256 minimum = minKaspaSompi * WEI_PER_SOMPI;
        if (amount < minimum) revert KaspaAmountBelowMinimum(amount, minimum);
        _checkKaspaRecipient(bytes(kaspaRecipient));
        _burn(msg.sender, amount);
        id = ++kaspaWithdrawalCount;
        emit WithdrawalToKaspa(id, msg.sender, amount, kaspaRecipient);
    }

    /// @notice Mints `amount` back to `burner` for a burn the signing group certified it will never
    /// pay, once per `refundKey` (the relay derives it from the burn).
    function refund(address burner, uint256 amount, bytes32 refundKey) external onlyRole(RELAYER_ROLE) {
        require(!refunded[refundKey], "already refunded");
        require(amount > 0, "zero amount");
        require(burner != address(0), "zero recipient");
        refunded[refundKey] = true;
        _consumeRateLimit(amount);
        _mint(burner, amount);
        emit Refunded(refundKey, burner, amount);
    }

    function _checkKaspaRecipient(bytes calldata r) private view {
        uint256 n = r.length;
        if (n > MAX_KASPA_RECIPIENT_BYTES) revert BadKaspaRecipient(n);
        bytes memory prefix = bytes(kaspaPrefix);
        uint256 p = prefix.length;
        if (n <= p || r[p] != ":" || keccak256(r[:p]) != keccak256(prefix)) revert WrongKaspaPrefix(string(r));
        uint256 payload = n - p - 1;
        if (payload != KASPA_PAYLOAD_SHORT && payload != KASPA_PAYLOAD_LONG) revert BadKaspaRecipient(payload);
        // The version byte's first five bits: 0 (P2PK Schnorr, P2PK ECDSA) is "q", 8 (P2SH) is "p".
        bytes1 v = r[p + 1];
        if (v != "q" && (v != "p" || payload != KASPA_PAYLOAD_SHORT)) revert BadKaspaAddressCharacter(p + 1);
        for (uint256 i = p + 2; i < n; ++i) {
            if ((BECH32_CHARSET_MASK >> uint8(r[i])) & 1 == 0) revert BadKaspaAddressCharacter(i);
        }
    }
}
