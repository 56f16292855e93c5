// The OpenAPI 3.1 description of every HTTP endpoint of the data service, served at GET /openapi.json.
import { ORDER_BY, STANDARDS } from '../../shared/listing.js';
import { DEFAULT_SIZE, MAX_CONTRACT_ADDRESSES, MAX_PAGE, MAX_SIZE } from '../listing/listing-params.js';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: object) => ({ 'application/json': { schema } });
const error = (description: string) => ({ description, content: json(ref('Error')) });

const errors = {
  badRequest: error('A parameter or field is invalid; the message names it and the allowed values.'),
  unauthorized: error('Missing or unknown clientId, or a missing, invalid, expired or revoked session token.'),
  notFound: error('Nothing is indexed under this address.'),
  rateLimited: {
    ...error('Too many requests for this clientId.'),
    headers: { 'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer' } } },
  },
};

const clientId = { name: 'clientId', in: 'query', required: true, description: 'Your client ID (`txdesk account:describe`).', schema: { type: 'string' } };
const pathAddress = (what: string) => ({
  name: 'address',
  in: 'path',
  required: true,
  description: `The ${what} address; compared case-insensitively.`,
  schema: ref('Address'),
});
const paging = [
  { name: 'page', in: 'query', description: 'Zero-based page number.', schema: { type: 'integer', minimum: 0, maximum: MAX_PAGE, default: 0 } },
  { name: 'size', in: 'query', description: 'Tokens per page.', schema: { type: 'integer', minimum: 1, maximum: MAX_SIZE, default: DEFAULT_SIZE } },
  {
    name: 'order_by',
    in: 'query',
    description:
      '`transfer_block_number` orders by the transfer that gave the owner the token (block, log index, then the position ' +
      'inside a ConsecutiveTransfer or TransferBatch log); for ERC-1155 the newest transfer that gave the owner some of the id.',
    schema: { type: 'string', enum: [...ORDER_BY], default: 'transfer_block_number' },
  },
  { name: 'order_direction', in: 'query', description: 'Case-insensitive.', schema: { type: 'string', enum: ['asc', 'desc'], default: 'desc' } },
  {
    name: 'standard',
    in: 'query',
    description: 'Only tokens of contracts of this standard (case-insensitive); absent means both.',
    schema: { type: 'string', enum: [...STANDARDS] },
  },
];
const contractAddresses = {
  name: 'contractAddresses',
  in: 'query',
  description: `Comma-separated contract addresses to keep, at most ${MAX_CONTRACT_ADDRESSES}; empty or absent means all.`,
  schema: { type: 'string' },
};
const listingResponses = {
  '200': { description: 'One page of tokens.', content: json(ref('TokenPage')) },
  '400': errors.badRequest,
  '401': errors.unauthorized,
  '429': errors.rateLimited,
};
const bearer = [{ bearerAuth: [] }];

export function buildOpenApi(serverUrl: string): object {
  return {
    openapi: '3.1.0',
    info: {
      title: 'txdesk data service',
      version: '1.0.0',
      description:
        'ERC-721 and ERC-1155 token listing, accounts and client IDs. Every error is `{ "error": { "code", "message" } }`. ' +
        'The transaction tracker is a WebSocket at /tracker/{platform}/{network}?clientId=… (JSON-RPC 2.0), not described here.',
    },
    servers: [{ url: serverUrl }],
    paths: {
      '/nft/v1/accounts/{address}/tokens': {
        get: {
          summary: 'Tokens owned by an account',
          parameters: [pathAddress('account'), clientId, ...paging, contractAddresses],
          responses: listingResponses,
        },
      },
      '/nft/v1/contracts/{address}': {
        get: {
          summary: 'One indexed ERC-721 or ERC-1155 contract',
          parameters: [pathAddress('contract'), clientId],
          responses: {
            '200': { description: 'The contract.', content: json(ref('Contract')) },
            '400': errors.badRequest,
            '401': errors.unauthorized,
            '404': errors.notFound,
            '429': errors.rateLimited,
          },
        },
      },
      '/nft/v1/contracts/{address}/tokens': {
        get: {
          summary: 'Tokens of one contract',
          parameters: [pathAddress('contract'), clientId, ...paging],
          responses: { ...listingResponses, '404': errors.notFound },
        },
      },
      '/nft/v1/contracts/{address}/tokens/{id}/refresh': {
        post: {
          summary: 'Read a token\'s metadata URI again (ERC-4906 on demand)',
          description:
            'Starts a new read of tokenURI(id) (ERC-721) or uri(id) (ERC-1155, all holders) from the indexed block and answers ' +
            '202 at once; the listing shows the new uri when the read completes (usually within a second). Rate-limited per ' +
            'clientId separately from the listing (30 per minute by default).',
          parameters: [
            pathAddress('contract'),
            { name: 'id', in: 'path', required: true, description: 'Decimal token id.', schema: { type: 'string', pattern: '^[0-9]{1,78}$' } },
            clientId,
          ],
          responses: {
            '202': {
              description: 'The read was started.',
              content: json({
                type: 'object',
                required: ['status', 'contract', 'id'],
                properties: { status: { type: 'string', enum: ['accepted'] }, contract: { type: 'string' }, id: { type: 'string' } },
              }),
            },
            '400': errors.badRequest,
            '401': errors.unauthorized,
            '404': error('The contract or the token is not in the index.'),
            '429': errors.rateLimited,
          },
        },
      },
      '/users/v1/signup': {
        post: {
          summary: 'Create an account (only when the service runs with open sign-up)',
          requestBody: { required: true, content: json(ref('Signup')) },
          responses: {
            '201': { description: 'The account, signed in.', content: json(ref('Session')) },
            '400': errors.badRequest,
            '403': error('Sign-up is closed on this service.'),
            '409': error('An account with this e-mail exists.'),
          },
        },
      },
      '/users/v1/login': {
        post: {
          summary: 'Sign in',
          requestBody: { required: true, content: json(ref('Login')) },
          responses: {
            '200': { description: 'The account and a session token.', content: json(ref('Session')) },
            '400': errors.badRequest,
            '401': error('Wrong e-mail or password (the answer does not say which).'),
          },
        },
      },
      '/users/v1/me': {
        get: {
          summary: 'The signed-in account',
          security: bearer,
          responses: { '200': { description: 'The account.', content: json(ref('Profile')) }, '401': errors.unauthorized },
        },
      },
      '/users/v1/passwd': {
        patch: {
          summary: 'Change the password; revokes every older session token',
          security: bearer,
          requestBody: { required: true, content: json(ref('Passwd')) },
          responses: {
            '200': { description: 'The account and a new session token.', content: json(ref('Session')) },
            '400': errors.badRequest,
            '401': error('Missing/invalid token, or the current password is wrong.'),
          },
        },
      },
      '/users/v1/logout': {
        post: {
          summary: 'Revoke this session token (only this one: other sessions of the account keep working)',
          description:
            'The token in the Authorization header stops working everywhere, also after a restart of the service, with a 401 ' +
            'that says to log in again. A second logout with the same token, or one with an expired or otherwise invalid ' +
            'token, is that 401 too. The body is empty or `{}`.',
          security: bearer,
          responses: {
            '204': { description: 'The token is revoked.' },
            '400': errors.badRequest,
            '401': error('Missing, invalid, expired or already revoked session token.'),
          },
        },
      },
      '/health': {
        get: {
          summary: 'Liveness and indexer progress',
          responses: { '200': { description: 'The service is up.', content: json(ref('Health')) } },
        },
      },
      '/openapi.json': {
        get: { summary: 'This document', responses: { '200': { description: 'OpenAPI 3.1 document.', content: json({ type: 'object' }) } } },
      },
    },
    components: {
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
      schemas: {
        Address: { type: 'string', pattern: '^0x[0-9a-fA-F]{40}$' },
        Error: {
          type: 'object',
          required: ['error'],
          properties: {
            error: {
              type: 'object',
              required: ['code', 'message'],
              properties: {
                code: {
                  type: 'string',
                  enum: ['BAD_REQUEST', 'INVALID_PARAMETER', 'UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND', 'METHOD_NOT_ALLOWED', 'CONFLICT', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE', 'RATE_LIMITED', 'UPSTREAM_UNAVAILABLE', 'CHAIN_ERROR', 'INTERNAL'],
                },
                message: { type: 'string', description: 'One sentence saying what is wrong and what to do.' },
              },
            },
          },
        },
        Contract: {
          type: 'object',
          required: ['address', 'name', 'symbol', 'totalSupply'],
          properties: {
            address: { type: 'string', description: 'Lowercase hex with 0x.' },
            name: { type: 'string' },
            symbol: { type: 'string' },
            totalSupply: {
              type: 'integer',
              description: 'ERC-721: totalSupply() when implemented, else minted minus burned. ERC-1155: the number of ids with a non-zero supply.',
            },
            standard: { type: 'string', enum: [...STANDARDS], description: 'Added with ERC-1155 support; always present.' },
          },
        },
        Token: {
          type: 'object',
          required: ['id', 'owner', 'uri', 'contract'],
          properties: {
            id: { type: 'string', description: 'Decimal token id.' },
            owner: { type: 'string', description: 'Lowercase hex with 0x.' },
            uri: {
              type: 'string',
              description:
                'ERC-721 tokenURI(id); ERC-1155 uri(id) with {id} replaced by the 64-digit hex id, or the newest URI event. "" when absent or reverting.',
            },
            balance: { type: 'string', description: 'Decimal amount held: "1" for ERC-721. Added with ERC-1155 support; always present.' },
            contract: ref('Contract'),
          },
        },
        TokenPage: {
          type: 'object',
          required: ['data', 'pagination'],
          properties: {
            data: { type: 'array', items: ref('Token') },
            pagination: {
              type: 'object',
              required: ['totalCount', 'prevUrl', 'nextUrl'],
              properties: {
                totalCount: { type: 'integer' },
                prevUrl: { type: 'string', description: 'Absolute URL of the previous page without clientId, or "".' },
                nextUrl: { type: 'string', description: 'Absolute URL of the next page without clientId, or "".' },
              },
            },
          },
        },
        Signup: {
          type: 'object',
          additionalProperties: false,
          required: ['email', 'password', 'name'],
          properties: {
            email: { type: 'string', format: 'email', maxLength: 320 },
            password: { type: 'string', minLength: 8, maxLength: 1024 },
            name: { type: 'string', minLength: 1, maxLength: 200 },
            organization: { type: 'string', maxLength: 200, default: '' },
          },
        },
        Login: {
          type: 'object',
          additionalProperties: false,
          required: ['email', 'password'],
          properties: { email: { type: 'string', format: 'email' }, password: { type: 'string', minLength: 1 } },
        },
        Passwd: {
          type: 'object',
          additionalProperties: false,
          required: ['password', 'newPassword'],
          properties: { password: { type: 'string', minLength: 1 }, newPassword: { type: 'string', minLength: 8, maxLength: 1024 } },
        },
        Profile: {
          type: 'object',
          required: ['email', 'name', 'organization', 'clientId'],
          properties: { email: { type: 'string' }, name: { type: 'string' }, organization: { type: 'string' }, clientId: { type: 'string' } },
        },
        Session: {
          allOf: [ref('Profile'), { type: 'object', required: ['jwtToken'], properties: { jwtToken: { type: 'string' } } }],
        },
        Health: {
          type: 'object',
          required: ['status', 'chainId', 'platform', 'network', 'indexedBlock', 'headBlock'],
          properties: {
            status: { type: 'string', enum: ['ok'] },
            chainId: { type: 'integer' },
            platform: { type: 'string' },
            network: { type: 'string' },
            indexerLag: { type: 'integer', description: 'Blocks the indexer stays behind the chain head (`txdesk service --indexer-lag`).' },
            confirmations: { type: 'integer', description: 'Old name of indexerLag.' },
            indexedBlock: { type: 'integer' },
            headBlock: { type: 'integer' },
            truncatedRanges: {
              type: 'object',
              description: 'EIP-2309 ConsecutiveTransfer events naming more tokens than the cap: only the first `cap` tokens are indexed.',
              properties: {
                count: { type: 'integer' },
                cap: { type: 'integer' },
                latest: { type: 'array', items: { type: 'object' } },
              },
            },
          },
        },
      },
    },
  };
}
