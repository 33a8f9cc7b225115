package privinfer_test

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/privinfer/privinfer"
)

// A C2ST-against-budget chart with a reference line at 0.5, written as
// SVG (WritePNG writes the same canvas as PNG).
func ExampleLineChart() {
	chart := privinfer.LineChart{
		Title: "C2ST against simulations", XLabel: "simulations", YLabel: "C2ST", LogX: true,
		Series: []privinfer.Series{{Name: "NPE", X: []float64{1e3, 1e4, 1e5}, Y: []float64{0.63, 0.55, 0.52}}},
		HLines: []float64{0.5},
	}
	cv, err := chart.Draw()
	if err != nil {
		fmt.Println(err)
		return
	}
	var svg bytes.Buffer
	if err := cv.WriteSVG(&svg); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(strings.HasPrefix(svg.String(), "<svg"), strings.Contains(svg.String(), "NPE"))
	// An empty chart is refused.
	_, err = privinfer.LineChart{}.Draw()
	fmt.Println(err)
	// Output:
	// true true
	// plot: no data
}
