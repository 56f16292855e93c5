// SPDX-License-Identifier: MIT
// The batch-minted sample collection: ERC-721 whose mints are EIP-2309 ConsecutiveTransfer events (no Transfer per
// token), ordinary Transfer afterwards, and ERC-4906 BatchMetadataUpdate when the base URI changes.
pragma solidity ^0.8.20;

contract TxdeskDrops {
    event Transfer(address indexed from, address indexed to, uint256 indexed tokenId);
    event ConsecutiveTransfer(uint256 indexed fromTokenId, uint256 toTokenId, address indexed fromAddress, address indexed toAddress);
    event BatchMetadataUpdate(uint256 _fromTokenId, uint256 _toTokenId);

    string public name;
    string public symbol;
    uint256 public totalSupply;
    address public owner;
    string private baseURI;

    /// Owner of a token, or of a batch starting at that id (ERC721A-style: later ids of a batch look back).
    mapping(uint256 => address) private owners;
    mapping(uint256 => bool) private burned;
    mapping(address => uint256) private balances;

    constructor(string memory name_, string memory symbol_, string memory baseURI_) {
        name = name_;
        symbol = symbol_;
        baseURI = baseURI_;
        owner = msg.sender;
    }

    function supportsInterface(bytes4 id) external pure returns (bool) {
        return id == 0x01ffc9a7 || id == 0x80ac58cd || id == 0x5b5e139f || id == 0x49064906; // ERC165, ERC721, metadata, ERC4906
    }

    function balanceOf(address account) external view returns (uint256) {
        require(account != address(0), "zero address");
        return balances[account];
    }

    function ownerOf(uint256 tokenId) public view returns (address) {
        require(tokenId >= 1 && tokenId <= totalSupply && !burned[tokenId], "nonexistent token");
        for (uint256 id = tokenId; ; id--) {
            if (owners[id] != address(0)) return owners[id];
        }
    }

    /// Token ids are 1..totalSupply; the URI is `{baseURI}{id}.json`.
    function tokenURI(uint256 tokenId) external view returns (string memory) {
        ownerOf(tokenId);
        return string.concat(baseURI, toDecimal(tokenId), ".json");
    }

    /// A new base URI for every token (a reveal): ERC-4906 tells indexers to read tokenURI again.
    function setBaseURI(string calldata baseURI_) external {
        require(msg.sender == owner, "not owner");
        baseURI = baseURI_;
        emit BatchMetadataUpdate(1, totalSupply);
    }

    /// Mints `count` tokens with the next ids to `to` in one ConsecutiveTransfer event (EIP-2309); returns the first id.
    function mintConsecutive(address to, uint256 count) external returns (uint256 firstId) {
        require(msg.sender == owner, "not owner");
        require(to != address(0), "zero address");
        require(count >= 1 && count <= 5000, "1 to 5000 per batch");
        firstId = totalSupply + 1;
        owners[firstId] = to;
        balances[to] += count;
        totalSupply += count;
        emit ConsecutiveTransfer(firstId, firstId + count - 1, address(0), to);
    }

    function transferFrom(address from, address to, uint256 tokenId) public {
        address holder = ownerOf(tokenId);
        require(holder == from, "wrong from");
        require(msg.sender == holder, "not allowed");
        require(to != address(0), "zero address");
        // Keep the rest of the batch with its owner: the next id now starts its own run.
        if (tokenId < totalSupply && owners[tokenId + 1] == address(0) && !burned[tokenId + 1]) owners[tokenId + 1] = holder;
        owners[tokenId] = to;
        balances[from] -= 1;
        balances[to] += 1;
        emit Transfer(from, to, tokenId);
    }

    function burn(uint256 tokenId) external {
        address holder = ownerOf(tokenId);
        require(msg.sender == holder, "not allowed");
        if (tokenId < totalSupply && owners[tokenId + 1] == address(0) && !burned[tokenId + 1]) owners[tokenId + 1] = holder;
        burned[tokenId] = true;
        balances[holder] -= 1;
        emit Transfer(holder, address(0), tokenId);
    }

    function toDecimal(uint256 value) private pure returns (string memory) {
        if (value == 0) return "0";
        uint256 digits;
        for (uint256 v = value; v != 0; v /= 10) digits++;
        bytes memory out = new bytes(digits);
        for (; value != 0; value /= 10) out[--digits] = bytes1(uint8(48 + (value % 10)));
        return string(out);
    }
}
