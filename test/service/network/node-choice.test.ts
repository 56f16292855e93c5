// The node choice's rules, as properties over random probe results and as named examples (pure: no chain, no clock).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RpcError } from '../../../src/lib/json-rpc.js';
import { RpcTimeoutError } from '../../../src/lib/json-rpc-ws.js';
import {
  adoptedChainId,
  chooseNode,
  classifyProbeError,
  problemsOf,
  startingChoice,
  type NodeChoice,
  type NodeChoiceOptions,
  type NodeObservation,
} from '../../../src/service/network/node-choice.js';

const EXPECTED = 1;
const opts: NodeChoiceOptions = { maxLagBlocks: 5, expectedChainId: EXPECTED };

const unprobed = (url: string): NodeObservation => ({ url, at: null, head: null, chainId: null, problem: null });
const healthy = (url: string, head: number, chainId = EXPECTED): NodeObservation => ({ url, at: 1, head, chainId, problem: null });
const failed = (url: string, problem: 'refused' | 'timeout' | 'error'): NodeObservation => ({
  url,
  at: 1,
  head: null,
  chainId: null,
  problem,
});
const serving = (inUse: number): NodeChoice => ({ inUse, state: 'serving', reason: 'Using it.' });

/** One node as the watcher records it: not probed yet, failed (forgetting its chain), or answering. */
const observation = (url: string) =>
  fc.oneof(
    fc.constant(unprobed(url)),
    fc.constantFrom('refused', 'timeout', 'error').map((p) => failed(url, p as 'refused')),
    fc.record({ head: fc.integer({ min: 0, max: 30 }), chainId: fc.constantFrom(1, 2) }).map((r) => healthy(url, r.head, r.chainId)),
  );
const nodesArb = fc.integer({ min: 1, max: 4 }).chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => observation(`http://n${i}`))));
const prevArb = (count: number) =>
  fc.oneof(
    fc.constant(startingChoice),
    fc.integer({ min: 0, max: count - 1 }).map(serving),
    fc.constantFrom<NodeChoice>({ inUse: null, state: 'unreachable', reason: 'x.' }, { inUse: null, state: 'wrong-chain', reason: 'x.' }),
  );
const caseArb = nodesArb.chain((nodes) =>
  fc.record({ nodes: fc.constant(nodes), prev: prevArb(nodes.length), maxLagBlocks: fc.integer({ min: 0, max: 8 }) }),
);

const isCandidate = (nodes: readonly NodeObservation[], o: NodeChoiceOptions, i: number) =>
  nodes[i]!.at !== null && nodes[i]!.chainId === o.expectedChainId && problemsOf(nodes, o)[i] === null;

describe('chooseNode, as properties', () => {
  const run = (check: (c: { nodes: NodeObservation[]; prev: NodeChoice; o: NodeChoiceOptions; next: NodeChoice }) => void) =>
    fc.assert(
      fc.property(caseArb, ({ nodes, prev, maxLagBlocks }) => {
        const o = { maxLagBlocks, expectedChainId: EXPECTED };
        check({ nodes, prev, o, next: chooseNode(prev, nodes, o) });
      }),
      { numRuns: 2000 },
    );

  it('never uses a node on the wrong chain, a failed node or a lagging one', () =>
    run(({ nodes, o, next }) => {
      if (next.inUse === null) return;
      const n = nodes[next.inUse]!;
      expect(n.chainId).toBe(EXPECTED);
      expect(n.problem).toBeNull();
      expect(problemsOf(nodes, o)[next.inUse]).toBeNull();
    }));

  it('serves while the current node can be used, or some node can and every node before it has been probed; only then', () =>
    run(({ nodes, prev, o, next }) => {
      const first = nodes.findIndex((_, i) => isCandidate(nodes, o, i));
      const staying = prev.state === 'serving' && prev.inUse !== null && isCandidate(nodes, o, prev.inUse);
      const any = staying || (first >= 0 && nodes.slice(0, first).every((n) => n.at !== null));
      expect(next.state === 'serving').toBe(any);
      expect(next.inUse !== null).toBe(any);
    }));

  it('stays on the current node while it is usable (no flapping back to a lower index)', () =>
    run(({ nodes, prev, o, next }) => {
      if (prev.state === 'serving' && prev.inUse !== null && isCandidate(nodes, o, prev.inUse)) expect(next).toBe(prev);
    }));

  it('otherwise picks the lowest-index usable node', () =>
    run(({ nodes, prev, o, next }) => {
      if (next === prev || next.inUse === null) return;
      const first = nodes.findIndex((_, i) => isCandidate(nodes, o, i));
      expect(next.inUse).toBe(first);
    }));

  it('names a state that fits the observations', () =>
    run(({ nodes, o, next }) => {
      if (next.state === 'serving') return;
      const answered = nodes.filter((n) => n.at !== null && !n.problem);
      if (nodes.some((n) => n.at === null)) expect(next.state).toBe('starting');
      else if (answered.length > 0 && answered.every((n) => n.chainId !== o.expectedChainId)) expect(next.state).toBe('wrong-chain');
      else expect(next.state).toBe('unreachable');
    }));

  it('gives one sentence as the reason', () =>
    run(({ next }) => {
      expect(next.reason).toMatch(/^[A-Z].*\.$/);
      expect(next.reason).not.toContain('\n');
    }));

  it('over a run of probes, switches only away from a node that cannot be used', () =>
    fc.assert(
      fc.property(
        fc
          .integer({ min: 1, max: 4 })
          .chain((n) =>
            fc.array(fc.tuple(...Array.from({ length: n }, (_, i) => observation(`http://n${i}`))), { minLength: 1, maxLength: 12 }),
          ),
        (rounds) => {
          let choice = startingChoice;
          for (const nodes of rounds) {
            const next = chooseNode(choice, nodes, opts);
            if (choice.inUse !== null && next.inUse !== choice.inUse) expect(isCandidate(nodes, opts, choice.inUse)).toBe(false);
            choice = next;
          }
        },
      ),
      { numRuns: 1000 },
    ));
});

describe('chooseNode, by example', () => {
  it('starts with the first node when every node answers', () => {
    const next = chooseNode(startingChoice, [healthy('http://a', 10), healthy('http://b', 10)], opts);
    expect(next).toEqual({ inUse: 0, state: 'serving', reason: 'Using node 1 (http://a), the first in the list.' });
  });

  it('waits for node 1 before using node 2 at start, so the first in the list wins, not the fastest', () => {
    const next = chooseNode(startingChoice, [unprobed('http://a'), healthy('http://b', 10)], opts);
    expect(next).toEqual({ inUse: null, state: 'starting', reason: 'Waiting for the first answer of node 1 (http://a).' });
  });

  it('stays starting while a node has not answered and none can be used yet', () => {
    const next = chooseNode(startingChoice, [failed('http://a', 'refused'), unprobed('http://b')], opts);
    expect(next.state).toBe('starting');
    expect(next.reason).toBe('Waiting for the first answer of node 2 (http://b).');
  });

  it('switches to the next node when the current one refuses, and says why', () => {
    const next = chooseNode(serving(0), [failed('http://a', 'refused'), healthy('http://b', 10)], opts);
    expect(next).toEqual({
      inUse: 1,
      state: 'serving',
      reason: 'Switched from node 1 (http://a) to node 2 (http://b) because node 1 (http://a) refused the connection.',
    });
  });

  it('switches away from a node that lags more than maxLagBlocks behind the best', () => {
    const next = chooseNode(serving(0), [healthy('http://a', 10), healthy('http://b', 16)], opts);
    expect(next.inUse).toBe(1);
    expect(next.reason).toContain('node 1 (http://a) is 6 blocks behind the best node (more than 5)');
  });

  it('stays on a node that lags by exactly maxLagBlocks', () => {
    expect(chooseNode(serving(0), [healthy('http://a', 10), healthy('http://b', 15)], opts).inUse).toBe(0);
  });

  it('does not go back to the first node once it recovers', () => {
    const after = chooseNode(serving(1), [healthy('http://a', 20), healthy('http://b', 20)], opts);
    expect(after.inUse).toBe(1);
  });

  it('skips a node on the wrong chain even when it is first and ahead', () => {
    const next = chooseNode(startingChoice, [healthy('http://a', 99, 2), healthy('http://b', 10)], opts);
    expect(next.inUse).toBe(1);
    expect(next.reason).toBe('Using node 2 (http://b) because node 1 (http://a) is on chain 2, not 1 as expected.');
  });

  it('stops the network when every node that answers is on the wrong chain', () => {
    const next = chooseNode(serving(0), [healthy('http://a', 10, 2), failed('http://b', 'timeout')], opts);
    expect(next).toEqual({
      inUse: null,
      state: 'wrong-chain',
      reason: 'No node can be used: node 1 (http://a) is on chain 2, not 1 as expected; node 2 (http://b) did not answer in time.',
    });
  });

  it('is unreachable when no node answers, and serves again when one does', () => {
    const down = chooseNode(serving(0), [failed('http://a', 'refused'), failed('http://b', 'error')], opts);
    expect(down).toMatchObject({ inUse: null, state: 'unreachable' });
    const back = chooseNode(down, [failed('http://a', 'refused'), healthy('http://b', 3)], opts);
    expect(back).toEqual({
      inUse: 1,
      state: 'serving',
      reason: 'Using node 2 (http://b) because node 1 (http://a) refused the connection.',
    });
  });

  it('uses no node while the expected chain is not known', () => {
    const next = chooseNode(startingChoice, [healthy('http://a', 1)], { maxLagBlocks: 5, expectedChainId: null });
    expect(next.state).toBe('unreachable');
  });
});

describe('a node that pushes back (HTTP 429, a capacity error)', () => {
  const LIMIT = 60_000;
  const limited: NodeChoiceOptions = { ...opts, backPressureLimitMs: LIMIT };
  /** A node that answered (head, chain) and has only pushed back for `forMs` since, as of its latest probe at t = 1,000,000. */
  const throttled = (url: string, head: number | null, forMs: number, chainId: number | null = EXPECTED): NodeObservation => ({
    url,
    at: 1_000_000,
    head,
    chainId,
    problem: null,
    throttledSince: 1_000_000 - forMs,
  });
  const anyNode = (url: string) =>
    fc.oneof(
      observation(url),
      fc
        .record({
          head: fc.option(fc.integer({ min: 0, max: 30 })),
          forMs: fc.integer({ min: 0, max: 2 * LIMIT }),
          chainId: fc.constantFrom(1, 2),
        })
        .map((r) => throttled(url, r.head, r.forMs, r.head === null ? null : r.chainId)),
    );
  const withThrottled = fc
    .integer({ min: 1, max: 4 })
    .chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => anyNode(`http://n${i}`))))
    .chain((nodes) => fc.record({ nodes: fc.constant(nodes), prev: prevArb(nodes.length) }));

  it('counts it as failing (rate-limited) exactly when its back-pressure has lasted the limit, and never as lagging', () =>
    fc.assert(
      fc.property(withThrottled, ({ nodes }) => {
        const problems = problemsOf(nodes, limited);
        nodes.forEach((n, i) => {
          if (n.throttledSince == null) return expect(problems[i]).not.toBe('rate-limited');
          expect(problems[i] === 'rate-limited').toBe(n.at! - n.throttledSince >= LIMIT);
          expect(problems[i]).not.toBe('lagging');
        });
      }),
      { numRuns: 2000 },
    ));

  it('never uses a rate-limited node, and keeps the node in use while its back-pressure is under the limit', () =>
    fc.assert(
      fc.property(withThrottled, ({ nodes, prev }) => {
        const next = chooseNode(prev, nodes, limited);
        if (next.inUse !== null) expect(problemsOf(nodes, limited)[next.inUse]).toBeNull();
        if (prev.state !== 'serving' || prev.inUse === null) return;
        const n = nodes[prev.inUse]!;
        if (n.throttledSince != null && n.at! - n.throttledSince < LIMIT && n.head !== null && n.chainId === EXPECTED)
          expect(next).toBe(prev);
      }),
      { numRuns: 2000 },
    ));

  it('gives one sentence as the reason', () =>
    fc.assert(
      fc.property(withThrottled, ({ nodes, prev }) => {
        const next = chooseNode(prev, nodes, limited);
        expect(next.reason).toMatch(/^[A-Z].*\.$/);
      }),
      { numRuns: 1000 },
    ));

  it('stays on node 1 through 59 s of back-pressure, and leaves it at 60 s, saying why', () => {
    const ahead = healthy('http://b', 40);
    expect(chooseNode(serving(0), [throttled('http://a', 30, 59_000), ahead], limited)).toEqual(serving(0));
    expect(chooseNode(serving(0), [throttled('http://a', 30, 60_000), ahead], limited)).toEqual({
      inUse: 1,
      state: 'serving',
      reason:
        'Switched from node 1 (http://a) to node 2 (http://b) because node 1 (http://a) has asked to slow down (HTTP 429 or ' +
        'a capacity error) for 60 s without answering.',
    });
  });

  it('makes a network with one node unreachable only after the limit', () => {
    expect(chooseNode(serving(0), [throttled('http://a', 30, 30_000)], limited)).toEqual(serving(0));
    expect(chooseNode(serving(0), [throttled('http://a', 30, 61_000)], limited)).toEqual({
      inUse: null,
      state: 'unreachable',
      reason: 'No node can be used: node 1 (http://a) has asked to slow down (HTTP 429 or a capacity error) for 61 s without answering.',
    });
  });

  it('waits at start for node 1 that pushed back before it ever answered, then moves on to node 2 after the limit', () => {
    const early = chooseNode(startingChoice, [throttled('http://a', null, 2_000, null), healthy('http://b', 10)], limited);
    expect(early).toEqual({
      inUse: null,
      state: 'starting',
      reason: 'Waiting for the first answer of node 1 (http://a), which asks to slow down (HTTP 429).',
    });
    expect(adoptedChainId([throttled('http://a', null, 2_000, null), healthy('http://b', 10, 7)], LIMIT)).toBeNull();
    const late = chooseNode(early, [throttled('http://a', null, LIMIT, null), healthy('http://b', 10)], limited);
    expect(late.inUse).toBe(1);
    expect(adoptedChainId([throttled('http://a', null, LIMIT, null), healthy('http://b', 10, 7)], LIMIT)).toBe(7);
  });

  it('does not take the old head of a throttled node for lag', () => {
    expect(problemsOf([throttled('http://a', 10, 5_000), healthy('http://b', 40)], limited)).toEqual([null, null]);
  });
});

describe('adoptedChainId', () => {
  it('prefers node 1: waits for its first probe, then takes the first chain reported in order', () => {
    expect(adoptedChainId([unprobed('a'), healthy('b', 1, 7)])).toBeNull();
    expect(adoptedChainId([failed('a', 'refused'), healthy('b', 1, 7)])).toBe(7);
    expect(adoptedChainId([healthy('a', 1, 5), healthy('b', 1, 7)])).toBe(5);
    expect(adoptedChainId([failed('a', 'refused')])).toBeNull();
  });
});

describe('classifyProbeError', () => {
  const rows: [string, unknown, string][] = [
    [
      'fetch could not connect',
      new RpcError('unreachable', 'The node at http://x could not be reached (TypeError).', 'eth_blockNumber'),
      'refused',
    ],
    [
      'fetch hit its timeout',
      new RpcError('unreachable', 'The node at http://x could not be reached (TimeoutError).', 'eth_blockNumber'),
      'timeout',
    ],
    ['HTTP 503', new RpcError('unreachable', 'The node at http://x answered HTTP 503.'), 'error'],
    ['not JSON-RPC', new RpcError('unreachable', 'The node at http://x sent a response that is not JSON-RPC.'), 'error'],
    ['a JSON-RPC error', new RpcError(-32000, 'header not found'), 'error'],
    ['the probe deadline', Object.assign(new Error('No answer within 3000 ms.'), { name: 'TimeoutError' }), 'timeout'],
    ['the WS transport timeout', new RpcTimeoutError('no answer from ws://x within 4000 ms'), 'timeout'],
    ['the WS transport timeout, in other words', new RpcTimeoutError('ws://x kept quiet'), 'timeout'],
    ['words alone are not a timeout', new Error('no answer from ws://x within 4000 ms'), 'error'],
    ['a WS connection refused', new Error('cannot open ws://x: connect ECONNREFUSED 127.0.0.1:1'), 'refused'],
    ['a WS connection closed', new Error('the connection to ws://x closed'), 'refused'],
    ['a reset socket', Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }), 'refused'],
    ['a cause with a code', new TypeError('fetch failed', { cause: Object.assign(new Error('x'), { code: 'ECONNREFUSED' }) }), 'refused'],
    ['a bad head block', new Error('The node sent null where a hex number belongs.'), 'error'],
    ['not an Error', 'boom', 'error'],
  ];
  it.each(rows)('%s', (_name, error, problem) => expect(classifyProbeError(error)).toBe(problem));
});
