// lib/visitor.ts — whom this request renders for; reading the cookies makes the page dynamic
import { cookies } from 'next/headers';

export async function visitor() {
  const jar = await cookies();
  return {
    anonymousId: jar.get('anon-id')?.value ?? 'anonymous', // set by a proxy (middleware) on the first visit
    context: { attributes: { country: jar.get('country')?.value ?? 'unknown' } },
  };
}
