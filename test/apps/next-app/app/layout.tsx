// app/layout.tsx — a server component
import { cookies } from 'next/headers';
import { browserBootstrap } from 'flagplane';
import { flags } from '@/lib/flags-server';
import { Flags } from './flags-provider';

export default async function RootLayout({ children }: { children: React.ReactNode }) {
  // The request first: it makes the page dynamic, so `next build` stops here rather than at the flags.
  const jar = await cookies();
  const anonymousId = jar.get('anon-id')?.value ?? 'anonymous'; // set by a proxy (middleware)
  const context = { attributes: { country: jar.get('country')?.value ?? 'unknown' } };
  await flags.ready();
  return (
    <html lang="en">
      <body>
        <Flags bootstrap={browserBootstrap(flags)} context={context} anonymousId={anonymousId}>
          {children}
        </Flags>
      </body>
    </html>
  );
}
