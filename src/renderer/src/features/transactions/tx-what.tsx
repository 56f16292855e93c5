// What a transaction does, in a line: "0.5 ETH to 0x12…ab", "call 0x42842e0e safeTransferFrom (ERC-721) on 0x…:
// token 3 to 0x…", "contract creation", "0 ETH to yourself". Cards show their nonce's, the detail its attempt's.
import type { TxRecord } from '../../../../shared/tx-record.js';
import { Hex } from '../../components/hex.js';
import { formatEthAmount } from '../../lib/format.js';
import { txAction } from './tx-payload.js';

// Every digit (it is what was sent), in the unit that keeps it short: "0.125 ETH", "1 wei".
const eth = (wei: string) => formatEthAmount(wei, 'exact');
const withValue = (wei: string) => (wei !== '0' ? ` with ${eth(wei)}` : '');

export function TxWhat({
  record,
  copy = false,
}: {
  record: TxRecord /** Copy buttons beside addresses (the detail has room). */;
  copy?: boolean;
}) {
  const a = txAction(record);
  const address = (value: string, what: string) => (
    <Hex value={value} head={6} tail={4} {...(copy ? { copy: what, explorer: 'address' as const } : {})} />
  );
  switch (a.kind) {
    case 'unknown':
      return null;
    case 'self':
      return (
        <span className="tx-what" data-kind="self">
          <strong>{eth(a.valueWei)}</strong> to yourself
        </span>
      );
    case 'transfer':
      return (
        <span className="tx-what" data-kind="transfer">
          <strong>{eth(a.valueWei)}</strong> to {address(a.to, 'recipient address')}
        </span>
      );
    case 'create':
      return (
        <span className="tx-what" data-kind="create">
          <strong>contract creation</strong>
          {withValue(a.valueWei)}
        </span>
      );
    case 'call':
      return (
        <span className="tx-what" data-kind="call">
          <strong>call</strong> <span className="mono">{a.selector}</span>
          {a.name ? <span className="muted"> {a.name}</span> : null} on {address(a.to, 'contract address')}
          {a.token ? (
            <>
              : {a.token.standard === 'ERC1155' ? `${a.token.amount} of token ` : 'token '}
              <span className="mono">{a.token.tokenId}</span> to {address(a.token.to, 'token recipient address')}
            </>
          ) : null}
          {withValue(a.valueWei)}
        </span>
      );
  }
}
