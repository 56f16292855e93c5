// SPDX-License-Identifier: MIT
// The "minimal" sample collection: bare ERC-721 (name and symbol, but no totalSupply and no tokenURI), with caller-chosen ids and burn.
pragma solidity ^0.8.20;

contract TxdeskPebbles {
    event Transfer(address indexed from, address indexed to, uint256 indexed tokenId);
    event Approval(address indexed owner, address indexed approved, uint256 indexed tokenId);
    event ApprovalForAll(address indexed owner, address indexed operator, bool approved);

    string public name;
    string public symbol;
    address public owner;

    mapping(uint256 => address) private owners;
    mapping(address => uint256) private balances;
    mapping(uint256 => address) private approvals;
    mapping(address => mapping(address => bool)) private operators;

    constructor(string memory name_, string memory symbol_) {
        name = name_;
        symbol = symbol_;
        owner = msg.sender;
    }

    function supportsInterface(bytes4 id) external pure returns (bool) {
        return id == 0x01ffc9a7 || id == 0x80ac58cd; // ERC165, ERC721 (no metadata extension: there is no tokenURI)
    }

    function balanceOf(address account) external view returns (uint256) {
        require(account != address(0), "zero address");
        return balances[account];
    }

    function ownerOf(uint256 tokenId) public view returns (address) {
        address holder = owners[tokenId];
        require(holder != address(0), "nonexistent token");
        return holder;
    }

    function mint(address to, uint256 tokenId) external {
        require(msg.sender == owner, "not owner");
        require(to != address(0), "zero address");
        require(owners[tokenId] == address(0), "already minted");
        owners[tokenId] = to;
        balances[to] += 1;
        emit Transfer(address(0), to, tokenId);
    }

    function burn(uint256 tokenId) external {
        address holder = ownerOf(tokenId);
        require(msg.sender == holder || approvals[tokenId] == msg.sender || operators[holder][msg.sender], "not allowed");
        delete approvals[tokenId];
        delete owners[tokenId];
        balances[holder] -= 1;
        emit Transfer(holder, address(0), tokenId);
    }

    function approve(address to, uint256 tokenId) external {
        address holder = ownerOf(tokenId);
        require(msg.sender == holder || operators[holder][msg.sender], "not allowed");
        approvals[tokenId] = to;
        emit Approval(holder, to, tokenId);
    }

    function getApproved(uint256 tokenId) external view returns (address) {
        ownerOf(tokenId);
        return approvals[tokenId];
    }

    function setApprovalForAll(address operator, bool approved) external {
        operators[msg.sender][operator] = approved;
        emit ApprovalForAll(msg.sender, operator, approved);
    }

    function isApprovedForAll(address holder, address operator) external view returns (bool) {
        return operators[holder][operator];
    }

    function transferFrom(address from, address to, uint256 tokenId) public {
        address holder = ownerOf(tokenId);
        require(holder == from, "wrong from");
        require(to != address(0), "zero address");
        require(msg.sender == holder || approvals[tokenId] == msg.sender || operators[holder][msg.sender], "not allowed");
        delete approvals[tokenId];
        balances[from] -= 1;
        balances[to] += 1;
        owners[tokenId] = to;
        emit Transfer(from, to, tokenId);
    }

    /// No receiver check: kept minimal on purpose; behaves like transferFrom.
    function safeTransferFrom(address from, address to, uint256 tokenId) external {
        transferFrom(from, to, tokenId);
    }

    function safeTransferFrom(address from, address to, uint256 tokenId, bytes calldata) external {
        transferFrom(from, to, tokenId);
    }
}
