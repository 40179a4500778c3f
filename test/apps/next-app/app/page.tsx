// app/page.tsx — a server component: server-only flags are decided here
import { forContext } from 'flagplane';
import { flags } from '@/lib/flags-server';
import { visitor } from '@/lib/visitor';
import { CheckoutButton } from './checkout-button';

export default async function Page() {
  const { context, anonymousId } = await visitor();
  const view = forContext(flags, { ...context, userId: anonymousId }); // anonymous visitors bucket by their id
  return (
    <main>
      <p>Paying with {String(view.get('payments-provider', 'stripe'))}</p>
      <CheckoutButton />
    </main>
  );
}
