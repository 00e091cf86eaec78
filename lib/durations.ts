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
