// The body of the approval dialog for each kind of request: a transaction's recipient, value, call, gas and what it can
// cost at most; a message's text (or hex); typed data's primary type, domain and message as nested key/values.
import type { ApprovalRequest, TransactionApproval } from '../../../../shared/approvals.js';
import { toChecksumAddress } from '../../lib/address-checksum.js';
import { calledText, dataRows, etherText, feeRangeText, integerText, messageShown } from './approval-format.js';

function TransactionFacts({ tx }: { tx: TransactionApproval }) {
  const hasData = tx.input !== '0x' && tx.input !== '';
  return (
    <dl className="facts facts-wide approval-facts" data-testid="approval-transaction">
      <div>
        <dt>To</dt>
        <dd className="mono" data-testid="approval-to">
          {/* Checksummed, as wallets and explorers write it, so it compares with what the person expects. */}
          {tx.to === null ? 'creates a contract' : toChecksumAddress(tx.to)}
        </dd>
      </div>
      <div>
        <dt>Value</dt>
        <dd className="mono" data-testid="approval-value">
          {etherText(tx.value)}
        </dd>
      </div>
      <div>
        <dt>Calls</dt>
        <dd className="mono" data-testid="approval-call">
          {calledText(tx)}
        </dd>
      </div>
      <div>
        <dt>Gas limit</dt>
        <dd className="mono">{integerText(tx.gasLimit)}</dd>
      </div>
      <div>
        <dt>Fee per gas</dt>
        <dd className="mono" data-testid="approval-fee">
          {feeRangeText(tx)}
        </dd>
      </div>
      <div className="span-all">
        <dt>Costs at most</dt>
        <dd data-testid="approval-max-cost">
          <strong className="mono">{etherText(tx.maxCostWei)}</strong>{' '}
          <span className="muted">(the value plus the gas limit at the fee cap; replacements never go above it)</span>
        </dd>
      </div>
      {hasData ? (
        <div className="span-all">
          <dt>Data</dt>
          <dd>
            <details className="approval-calldata">
              <summary>{integerText(String((tx.input.length - 2) / 2))} bytes</summary>
              <code className="mono">{tx.input}</code>
            </details>
          </dd>
        </div>
      ) : null}
    </dl>
  );
}

function MessageFacts({ message }: { message: NonNullable<ApprovalRequest['message']> }) {
  const shown = messageShown(message);
  return (
    <div className="approval-section">
      <h3 className="section-title">{shown.as === 'text' ? 'Message' : 'Message (not text: its bytes in hex)'}</h3>
      <pre className={`approval-message${shown.as === 'hex' ? ' mono' : ''}`} data-testid="approval-message">
        {shown.value}
      </pre>
    </div>
  );
}

function DataList({ title, data, testId }: { title: string; data: Record<string, unknown>; testId: string }) {
  const { rows, more } = dataRows(data);
  return (
    <div className="approval-section">
      <h3 className="section-title">{title}</h3>
      <ul className="approval-data" data-testid={testId}>
        {rows.map((r, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: the rows of one request never reorder; a row is its position.
          <li key={i} className={`depth-${Math.min(r.depth, 5)}`}>
            <span className="approval-key">{r.key}:</span>
            {r.value === null ? null : (
              <>
                {' '}
                <span className="approval-value mono">{r.value}</span>
              </>
            )}
          </li>
        ))}
      </ul>
      {more > 0 ? <p className="hint">…and {more} more lines not shown.</p> : null}
    </div>
  );
}

function TypedDataFacts({ typedData }: { typedData: NonNullable<ApprovalRequest['typedData']> }) {
  return (
    <>
      <p className="approval-primary">
        Primary type{' '}
        <strong className="mono" data-testid="approval-primary-type">
          {typedData.primaryType}
        </strong>
      </p>
      <DataList title="Domain" data={typedData.domain} testId="approval-domain" />
      <DataList title="Message" data={typedData.message} testId="approval-typed-message" />
    </>
  );
}

export function ApprovalDetails({ request }: { request: ApprovalRequest }) {
  if (request.kind === 'transaction' && request.transaction) return <TransactionFacts tx={request.transaction} />;
  if (request.kind === 'message' && request.message) return <MessageFacts message={request.message} />;
  if (request.kind === 'typed-data' && request.typedData) return <TypedDataFacts typedData={request.typedData} />;
  return <p>The app cannot show what this request asks; decline it unless you know what it is.</p>;
}
