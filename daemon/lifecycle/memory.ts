/** Process memory in bytes, for status (the soak benchmark samples it). */
export function processMemory(): Record<string, number> {
  const m = process.memoryUsage();
  return {
    rss: m.rss,
    heapUsed: m.heapUsed,
    heapTotal: m.heapTotal,
    external: m.external,
    arrayBuffers: m.arrayBuffers,
  };
}
