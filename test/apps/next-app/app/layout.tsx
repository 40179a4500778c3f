// app/layout.tsx — a server component
import { browserBootstrap } from 'flagplane';
import { flags } from '@/lib/flags-server';
import { visitor } from '@/lib/visitor';
import { Flags } from './flags-provider';

export default async function RootLayout({ children }: { children: React.ReactNode }) {
  const { context, anonymousId } = await visitor(); // first: `next build` stops here, not at the flags
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
