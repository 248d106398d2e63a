/**
 * The one reader of server-sent events (the daemon's `/api/v1/events`), from
 * the body as text chunks: lines end at LF (a CR before it is dropped), the
 * `data:` lines of one event are joined with LF, an empty line ends the
 * event; comments and the other fields (`id:`, `event:`) are skipped, since
 * the daemon repeats the type and sequence number inside each event's JSON.
 */
export async function* sseData(chunks: AsyncIterable<string>): AsyncGenerator<string> {
  let buf = '';
  let data: string[] = [];
  for await (const chunk of chunks) {
    buf += chunk;
    let start = 0;
    for (let lf = buf.indexOf('\n'); lf >= 0; lf = buf.indexOf('\n', start)) {
      const line = buf.slice(start, buf[lf - 1] === '\r' ? lf - 1 : lf);
      start = lf + 1;
      if (line === '') {
        if (data.length > 0) yield data.join('\n');
        data = [];
      } else if (line.startsWith('data:')) data.push(line.slice(line[5] === ' ' ? 6 : 5));
    }
    buf = buf.slice(start);
  }
}
