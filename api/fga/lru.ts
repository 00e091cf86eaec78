/** A Map bounded to `max` entries, least recently used out first (Map iteration order is insertion order). */
export class Lru<K, V> {
  readonly #map = new Map<K, V>();
  readonly max: number;
  constructor(max: number) {
    this.max = max;
  }

  get(key: K): V | undefined {
    const value = this.#map.get(key);
    if (value !== undefined) {
      this.#map.delete(key);
      this.#map.set(key, value);
    }
    return value;
  }

  set(key: K, value: V): void {
    this.#map.delete(key);
    if (this.#map.size >= this.max) this.#map.delete(this.#map.keys().next().value as K);
    this.#map.set(key, value);
  }

  delete(key: K): void {
    this.#map.delete(key);
  }

  clear(): void {
    this.#map.clear();
  }

  get size(): number {
    return this.#map.size;
  }
}
