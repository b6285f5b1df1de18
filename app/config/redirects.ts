/**
 * Old and marketing paths the site links to, sent to the page they mean
 * (docs/product.md#redirects).
 */
export const pathRedirects: Record<string, string> = {
  "accounts/checking": "/products/premier-checking",
  "accounts/savings": "/products/high-yield-savings",
  "credit-cards": "/products/rewards-credit-card",
  "credit-card": "/products/rewards-credit-card",
  mortgages: "/products/home-mortgages",
  investments: "/products/investment-solutions",
  loans: "/products/personal-loans",
  "business/checking": "/products/business-checking",
  "business/merchant-services": "/products/merchant-services",
  "business/credit-card": "/products/business-credit-card",
  "business/loans": "/products/business-loans",
  "business/treasury-management": "/products/treasury-management",
  "business/savings": "/products/business-savings",
  services: "/products",
  schedule: "/contact?subject=general&meeting=1",
};

export const policyPages = ["security", "privacy", "terms", "accessibility", "careers", "community"] as const;
export type PolicyPage = (typeof policyPages)[number];
