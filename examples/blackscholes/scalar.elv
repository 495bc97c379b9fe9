// Black-Scholes, scalar: one option per loop iteration.
let main = betaEtaNF ; lowerToC;
