// SPDX-License-Identifier: MIT
// The ERC-1155 sample collection: fungible-per-id gems with name, symbol and uri(id) using the {id} substitution.
pragma solidity ^0.8.20;

interface IERC1155Receiver {
    function onERC1155Received(address operator, address from, uint256 id, uint256 value, bytes calldata data) external returns (bytes4);
    function onERC1155BatchReceived(address operator, address from, uint256[] calldata ids, uint256[] calldata values, bytes calldata data)
        external
        returns (bytes4);
}

contract TxdeskGems {
    event TransferSingle(address indexed operator, address indexed from, address indexed to, uint256 id, uint256 value);
    event TransferBatch(address indexed operator, address indexed from, address indexed to, uint256[] ids, uint256[] values);
    event ApprovalForAll(address indexed account, address indexed operator, bool approved);
    event URI(string value, uint256 indexed id);

    string public name;
    string public symbol;
    address public owner;
    string private uri_;

    mapping(uint256 => mapping(address => uint256)) private balances;
    mapping(address => mapping(address => bool)) private operators;

    /// `uri` is the EIP-1155 template, e.g. "http://host/0xabc.../{id}.json".
    constructor(string memory name_, string memory symbol_, string memory template) {
        name = name_;
        symbol = symbol_;
        uri_ = template;
        owner = msg.sender;
    }

    function supportsInterface(bytes4 id) external pure returns (bool) {
        return id == 0x01ffc9a7 || id == 0xd9b67a26 || id == 0x0e89341c; // ERC165, ERC1155, ERC1155MetadataURI
    }

    function uri(uint256) external view returns (string memory) {
        return uri_;
    }

    function setURI(string calldata template) external {
        require(msg.sender == owner, "not owner");
        uri_ = template;
    }

    function balanceOf(address account, uint256 id) public view returns (uint256) {
        require(account != address(0), "zero address");
        return balances[id][account];
    }

    function balanceOfBatch(address[] calldata accounts, uint256[] calldata ids) external view returns (uint256[] memory out) {
        require(accounts.length == ids.length, "length mismatch");
        out = new uint256[](ids.length);
        for (uint256 i = 0; i < ids.length; i++) out[i] = balanceOf(accounts[i], ids[i]);
    }

    function setApprovalForAll(address operator, bool approved) external {
        operators[msg.sender][operator] = approved;
        emit ApprovalForAll(msg.sender, operator, approved);
    }

    function isApprovedForAll(address account, address operator) external view returns (bool) {
        return operators[account][operator];
    }

    function mint(address to, uint256 id, uint256 value) external {
        require(msg.sender == owner, "not owner");
        require(to != address(0), "zero address");
        balances[id][to] += value;
        emit TransferSingle(msg.sender, address(0), to, id, value);
    }

    function mintBatch(address to, uint256[] calldata ids, uint256[] calldata values) external {
        require(msg.sender == owner, "not owner");
        require(to != address(0), "zero address");
        require(ids.length == values.length, "length mismatch");
        for (uint256 i = 0; i < ids.length; i++) balances[ids[i]][to] += values[i];
        emit TransferBatch(msg.sender, address(0), to, ids, values);
    }

    function burn(address from, uint256 id, uint256 value) external {
        require(from == msg.sender || operators[from][msg.sender], "not allowed");
        require(balances[id][from] >= value, "insufficient balance");
        balances[id][from] -= value;
        emit TransferSingle(msg.sender, from, address(0), id, value);
    }

    function safeTransferFrom(address from, address to, uint256 id, uint256 value, bytes calldata data) external {
        require(from == msg.sender || operators[from][msg.sender], "not allowed");
        require(to != address(0), "zero address");
        require(balances[id][from] >= value, "insufficient balance");
        balances[id][from] -= value;
        balances[id][to] += value;
        emit TransferSingle(msg.sender, from, to, id, value);
        if (to.code.length > 0) {
            bytes4 answer = IERC1155Receiver(to).onERC1155Received(msg.sender, from, id, value, data);
            require(answer == IERC1155Receiver.onERC1155Received.selector, "receiver rejected");
        }
    }

    function safeBatchTransferFrom(address from, address to, uint256[] calldata ids, uint256[] calldata values, bytes calldata data) external {
        require(from == msg.sender || operators[from][msg.sender], "not allowed");
        require(to != address(0), "zero address");
        require(ids.length == values.length, "length mismatch");
        for (uint256 i = 0; i < ids.length; i++) {
            require(balances[ids[i]][from] >= values[i], "insufficient balance");
            balances[ids[i]][from] -= values[i];
            balances[ids[i]][to] += values[i];
        }
        emit TransferBatch(msg.sender, from, to, ids, values);
        if (to.code.length > 0) {
            bytes4 answer = IERC1155Receiver(to).onERC1155BatchReceived(msg.sender, from, ids, values, data);
            require(answer == IERC1155Receiver.onERC1155BatchReceived.selector, "receiver rejected");
        }
    }
}
