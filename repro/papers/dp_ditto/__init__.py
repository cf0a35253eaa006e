"""DP-Ditto: Convergence-Privacy-Fairness Trade-Off in Personalized Federated Learning (Zhao et al.)."""
