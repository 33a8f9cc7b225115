package nats

import "math/rand/v2"

type randRand = rand.Rand
