/** The bytes of each flag of a snapshot body, as sent: key → the flag's JSON text, in body order. */
export function rawFlagMembers(body: string): Map<string, string> {
  const start = body.indexOf('"flags":{');
  if (start === -1) throw new Error('the body has no flags member');
  const members = new Map<string, string>();
  let i = start + '"flags":{'.length;
  /** The index just past the string that starts at `from` (a `"`). */
  const endOfString = (from: number) => {
    let j = from + 1;
    while (body[j] !== '"') j += body[j] === '\\' ? 2 : 1;
    return j + 1;
  };
  while (body[i] !== '}') {
    const keyEnd = endOfString(i);
    const key = JSON.parse(body.slice(i, keyEnd)) as string;
    const valueStart = keyEnd + 1;
    let depth = 0;
    let j = valueStart;
    for (; j < body.length; j += 1) {
      const c = body[j];
      if (c === '"') j = endOfString(j) - 1;
      else if (c === '{' || c === '[') depth += 1;
      else if (c === '}' || c === ']') {
        if (depth === 0) break;
        depth -= 1;
      } else if (c === ',' && depth === 0) break;
    }
    members.set(key, body.slice(valueStart, j));
    i = body[j] === ',' ? j + 1 : j;
  }
  return members;
}
