// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";

/// @title BridgeToken
/// @notice Execution-side token: minted by relayers for deposits locked on the lock side,
/// burned by holders to withdraw there, or to be paid on Kaspa by the signing group.
contract BridgeToken is ERC20, AccessControl {
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
    /// @notice Longest Kaspa address accepted; the signers check the address itself.
    uint256 public constant MAX_KASPA_RECIPIENT_BYTES = 100;

    /// @notice A burn toward Kaspa must be a whole number of sompi: it is never rounded.
    error AmountNotWholeSompi(uint256 amount);
    /// @notice The Kaspa recipient is empty or longer than MAX_KASPA_RECIPIENT_BYTES.
    error BadKaspaRecipient(uint256 length);

    event DepositMinted(bytes32 indexed depositKey, address indexed to, uint256 amount);
    event WithdrawalBurned(uint256 indexed id, address indexed withdrawer, uint256 amount, address recipient);
    event WithdrawalToKaspa(uint256 indexed id, address indexed withdrawer, uint256 amount, string kaspaRecipient);

    constructor(string memory name_, string memory symbol_, address admin, address relayer) ERC20(name_, symbol_) {
        _grantRole(DEFAULT_ADMIN_ROLE, admin);
        _grantRole(RELAYER_ROLE, relayer);
    }

    /// @notice Mints `amount` to `to` for the deposit identified by `depositKey`, once.
    function mint(address to, uint256 amount, bytes32 depositKey) external onlyRole(RELAYER_ROLE) {
        require(!minted[depositKey], "already minted");
        minted[depositKey] = true;
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
    /// amount / WEI_PER_SOMPI sompi.
    function burnToKaspa(uint256 amount, string calldata kaspaRecipient) external returns (uint256 id) {
        require(amount > 0, "zero amount");
        if (amount % WEI_PER_SOMPI != 0) revert AmountNotWholeSompi(amount);
        uint256 n = bytes(kaspaRecipient).length;
        if (n == 0 || n > MAX_KASPA_RECIPIENT_BYTES) revert BadKaspaRecipient(n);
        _burn(msg.sender, amount);
        id = ++kaspaWithdrawalCount;
        emit WithdrawalToKaspa(id, msg.sender, amount, kaspaRecipient);
    }
}
