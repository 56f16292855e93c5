// "waiting 3 min": an age that keeps itself current, with the full date, time and time zone on hover.
import { useEffect, useState } from 'react';
import { formatAge, formatFullDate } from '../lib/format.js';

/** One clock for every age on screen, ticking while any is shown. */
const subscribers = new Set<(now: number) => void>();
let timer: ReturnType<typeof setInterval> | null = null;
function useNow(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    subscribers.add(setNow);
    timer ??= setInterval(() => subscribers.forEach((s) => s(Date.now())), 1_000);
    return () => {
      subscribers.delete(setNow);
      if (subscribers.size === 0 && timer) {
        clearInterval(timer);
        timer = null;
      }
    };
  }, []);
  return now;
}

export function RelTime({
  iso,
  prefix = '',
  suffix = ' ago',
  className = '',
}: {
  iso: string;
  prefix?: string;
  suffix?: string;
  className?: string;
}) {
  const now = useNow();
  const full = formatFullDate(iso);
  return (
    <time dateTime={iso} title={full} className={`rel-time ${className}`}>
      {prefix ? `${prefix} ` : ''}
      {formatAge(iso, now)}
      {suffix}
      <span className="sr-only">, {full}</span>
    </time>
  );
}
