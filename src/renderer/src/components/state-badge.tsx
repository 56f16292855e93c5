// The badge for a nonce's or an attempt's state, in the app's one vocabulary (store/nonce-state.ts).
import { reasonWords, stateMeanings, stateTone, stateWords, type NeedsYouReason, type NonceStateName } from '../store/nonce-state.js';

export function StateBadge({ state, reason = null }: { state: NonceStateName; reason?: NeedsYouReason | null }) {
  return (
    <span className={`badge tone-${stateTone(state)}`} data-state={state} title={stateMeanings[state]}>
      <span className="badge-dot" aria-hidden="true" />
      <span>
        {stateWords[state]}
        {reason ? <span className="badge-reason">: {reasonWords[reason]}</span> : null}
      </span>
    </span>
  );
}
