// The listing's answers as zod schemas, for /openapi.json (the shapes are the types of shared/listing.ts; the handlers
// build them from the index, so nothing parses them at run time).
import { z } from 'zod';
import { STANDARDS } from '../../shared/listing.js';

export const contractReply = z
  .object({
    address: z.string().meta({ description: 'Lowercase hex with 0x.' }),
    name: z.string(),
    symbol: z.string(),
    totalSupply: z.int().meta({
      description: 'ERC-721: totalSupply() when implemented, else minted minus burned. ERC-1155: the number of ids with a non-zero supply.',
    }),
    standard: z.enum(STANDARDS).meta({ description: 'Added with ERC-1155 support; always present.' }),
  })
  .meta({ id: 'Contract' });

const tokenReply = z
  .object({
    id: z.string().meta({ description: 'Decimal token id.' }),
    owner: z.string().meta({ description: 'Lowercase hex with 0x.' }),
    uri: z.string().meta({
      description:
        'ERC-721 tokenURI(id); ERC-1155 uri(id) with {id} replaced by the 64-digit hex id, or the newest URI event. "" when absent or reverting.',
    }),
    balance: z.string().meta({ description: 'Decimal amount held: "1" for ERC-721. Added with ERC-1155 support; always present.' }),
    contract: contractReply,
  })
  .meta({ id: 'Token' });

export const tokenPageReply = z
  .object({
    data: z.array(tokenReply),
    pagination: z.object({
      totalCount: z.int(),
      prevUrl: z.string().meta({ description: 'Absolute URL of the previous page without clientId, or "".' }),
      nextUrl: z.string().meta({ description: 'Absolute URL of the next page without clientId, or "".' }),
    }),
  })
  .meta({ id: 'TokenPage' });

export const refreshReply = z.object({ status: z.literal('accepted'), contract: z.string(), id: z.string() });
