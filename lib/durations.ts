// Human-readable durations for messages.
const UNITS: [string, number][] = [
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
  ['second', 1000],
];
/** `7 days`, `90 minutes`, `200 ms`: the largest unit that divides the duration. */
export function formatDuration(ms: number) {
  const [unit, size] = UNITS.find(([, size]) => ms >= size && ms % size === 0) ?? ['ms', 1];
  const n = ms / size;
  return unit === 'ms' ? `${n} ms` : `${n} ${unit}${n === 1 ? '' : 's'}`;
}

const SHORT_UNITS: [string, number][] = [
  ['d', 86_400_000],
  ['h', 3_600_000],
  ['m', 60_000],
  ['s', 1000],
  ['ms', 1],
];
/** `1d3h35m5s`: a duration in the notation of the configuration (lib/config.ts), largest units first. */
export function formatConfigDuration(ms: number) {
  let rest = ms;
  const parts = SHORT_UNITS.flatMap(([unit, size]) => {
    const n = Math.floor(rest / size);
    rest -= n * size;
    return n > 0 ? [`${n}${unit}`] : [];
  });
  return parts.join('') || '0';
}
