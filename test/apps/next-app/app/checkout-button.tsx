// app/checkout-button.tsx
'use client';
import { useFlag } from 'flagplane/react';

export function CheckoutButton() {
  const color = useFlag('checkout-button-color', 'blue');
  return <button id="checkout" style={{ background: color }}>{color}</button>;
}
