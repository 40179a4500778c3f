// app/page.tsx — a server component: server-only flags are decided here
import { cookies } from 'next/headers';
import { forContext } from 'flagplane';
import { flags } from '@/lib/flags-server';
import { CheckoutButton } from './checkout-button';

export default async function Page() {
  const country = (await cookies()).get('country')?.value ?? 'unknown';
  const provider = forContext(flags, { attributes: { country } }).get('payments-provider', 'stripe');
  return (
    <main>
      <p>Paying with {String(provider)}</p>
      <CheckoutButton />
    </main>
  );
}
