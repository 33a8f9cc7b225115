package tb

// sanFranciscoSizes is the San Francisco IS6110 cluster-size table of Small
// et al. (1994) as Tanaka et al. (2006) and the ABCDP authors' code use it:
// (cluster size, number of clusters).
var sanFranciscoSizes = [...][2]int{
	{30, 1}, {23, 1}, {15, 1}, {10, 1}, {8, 1}, {5, 2}, {4, 4}, {3, 13}, {2, 20}, {1, 282},
}

// sanFranciscoMonths are the observation months of the largest San
// Francisco cluster in the ABCDP authors' code (their reading of Lintusaari
// et al. 2019).
var sanFranciscoMonths = [...]int{0, 0, 1, 2, 3, 3, 4, 4, 4, 4, 4, 4, 5, 5, 5, 5, 5, 7, 8, 8, 10, 11, 12, 14, 16, 16, 18, 20, 21, 23}

// SanFranciscoClusters returns the sizes of the 326 genotype clusters of the
// 473 San Francisco isolates (Small et al. 1994), largest first.
func SanFranciscoClusters() []int {
	var s []int
	for _, e := range sanFranciscoSizes {
		for range e[1] {
			s = append(s, e[0])
		}
	}
	return s
}

// SanFrancisco returns the summary (NumStats values, StatObserved order) of
// the San Francisco data: 473 cases in 326 clusters, the largest of 30, the
// four largest 30, 23, 15, 10, 282 singletons and 20 pairs, the largest
// cluster observed over 24 months in 17 distinct months, and gene diversity
// 1 − 2411/473².
func SanFrancisco() []float64 {
	dst := make([]float64, NumStats)
	s := &state{obs: make([]int32, 0, 326)}
	for _, c := range SanFranciscoClusters() {
		s.obs = append(s.obs, int32(c))
	}
	for _, m := range sanFranciscoMonths {
		s.events = append(s.events, obsEvent{cluster: 0, month: int32(m)})
	}
	s.summarise(DefaultObsYears, dst)
	return dst
}
