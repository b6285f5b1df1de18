import { Building2, ChartLine, CreditCard, HandCoins, House, Landmark, PiggyBank, Store } from "lucide-react";
import type { Product } from "~/config/institution";

const ICONS: Record<Product["icon"], typeof Landmark> = {
  checking: Landmark,
  savings: PiggyBank,
  card: CreditCard,
  home: House,
  investment: ChartLine,
  loan: HandCoins,
  merchant: Store,
  treasury: Building2,
};

export function productIcon(icon: Product["icon"]) {
  return ICONS[icon];
}
