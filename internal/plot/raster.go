package plot

import (
	"fmt"
	"image"
	imgcolor "image/color"
	"image/png"
	"io"
	"math"
	"strconv"
	"strings"
)

// ss is the supersampling factor used for antialiasing in Raster.
const ss = 2

// Raster renders the canvas to an RGBA image of size W×H pixels. Shapes
// are antialiased by 2×2 supersampling; text uses the public-domain 6×13
// misc-fixed bitmap font (printable ASCII, Latin-1, Greek and common
// mathematical symbols; other characters are drawn as boxes).
func (c *Canvas) Raster() *image.RGBA {
	w, h := int(math.Ceil(c.W)), int(math.Ceil(c.H))
	big := &raster{w: w * ss, h: h * ss, pix: make([]float64, 3*w*h*ss*ss)}
	for i := range big.pix {
		big.pix[i] = 1 // white background
	}
	for _, it := range c.items {
		big.draw(it)
	}
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			var acc [3]float64
			for dy := 0; dy < ss; dy++ {
				for dx := 0; dx < ss; dx++ {
					o := 3 * ((y*ss+dy)*big.w + x*ss + dx)
					acc[0] += big.pix[o]
					acc[1] += big.pix[o+1]
					acc[2] += big.pix[o+2]
				}
			}
			f := 255.0 / (ss * ss)
			img.SetRGBA(x, y, imgcolor.RGBA{uint8(acc[0]*f + 0.5), uint8(acc[1]*f + 0.5), uint8(acc[2]*f + 0.5), 255})
		}
	}
	return img
}

// WritePNG writes the rasterized canvas as a PNG image.
func (c *Canvas) WritePNG(w io.Writer) error {
	return png.Encode(w, c.Raster())
}

type raster struct {
	w, h int
	pix  []float64 // RGB in [0,1], row-major
}

type rgb struct{ r, g, b float64 }

// parseColor understands "#rrggbb", "#rgb" and a few names; ok is false for
// "none" or an unknown color.
func parseColor(s string) (rgb, bool) {
	switch strings.ToLower(s) {
	case "", "none":
		return rgb{}, false
	case "black":
		return rgb{0, 0, 0}, true
	case "white":
		return rgb{1, 1, 1}, true
	}
	if strings.HasPrefix(s, "#") {
		hex := s[1:]
		if len(hex) == 3 {
			hex = string([]byte{hex[0], hex[0], hex[1], hex[1], hex[2], hex[2]})
		}
		if len(hex) == 6 {
			v, err := strconv.ParseUint(hex, 16, 32)
			if err == nil {
				return rgb{float64(v>>16&0xff) / 255, float64(v>>8&0xff) / 255, float64(v&0xff) / 255}, true
			}
		}
	}
	return rgb{}, false
}

func (r *raster) blend(x, y int, c rgb, a float64) {
	if x < 0 || y < 0 || x >= r.w || y >= r.h {
		return
	}
	o := 3 * (y*r.w + x)
	r.pix[o] += (c.r - r.pix[o]) * a
	r.pix[o+1] += (c.g - r.pix[o+1]) * a
	r.pix[o+2] += (c.b - r.pix[o+2]) * a
}

func opacity(s Style) float64 {
	if s.Opacity > 0 && s.Opacity < 1 {
		return s.Opacity
	}
	return 1
}

func (r *raster) draw(it item) {
	p := make([]float64, len(it.pts))
	for i, v := range it.pts {
		p[i] = v * ss
	}
	a := opacity(it.style)
	fill, hasFill := parseColor(it.style.Fill)
	stroke, hasStroke := parseColor(it.style.Stroke)
	sw := it.style.StrokeWidth
	if sw <= 0 {
		sw = 1
	}
	sw *= ss
	switch it.kind {
	case kLine, kPolyline:
		if hasStroke {
			r.strokePath(p, false, stroke, a, sw, it.style.Dash)
		}
	case kPolygon:
		if hasFill {
			r.fillPolygon(p, fill, a)
		}
		if hasStroke {
			r.strokePath(p, true, stroke, a, sw, it.style.Dash)
		}
	case kCircle:
		cx, cy, rad := p[0], p[1], p[2]
		if hasFill {
			r.disc(cx, cy, rad, fill, a)
		}
		if hasStroke {
			r.ring(cx, cy, rad, sw, stroke, a)
		}
	case kRect:
		x, y, w, h := p[0], p[1], p[2], p[3]
		if hasFill {
			r.fillPolygon([]float64{x, y, x + w, y, x + w, y + h, x, y + h}, fill, a)
		}
		if hasStroke {
			r.strokePath([]float64{x, y, x + w, y, x + w, y + h, x, y + h}, true, stroke, a, sw, it.style.Dash)
		}
	case kText:
		r.text(p[0], p[1], it.text, it.size, it.anchor, it.rotate)
	}
}

// fillPolygon fills a polygon with the even-odd rule by scanlines through
// pixel centres.
func (r *raster) fillPolygon(p []float64, c rgb, a float64) {
	n := len(p) / 2
	if n < 3 {
		return
	}
	ymin, ymax := math.Inf(1), math.Inf(-1)
	for i := 0; i < n; i++ {
		ymin = math.Min(ymin, p[2*i+1])
		ymax = math.Max(ymax, p[2*i+1])
	}
	y0 := max(0, int(math.Floor(ymin)))
	y1 := min(r.h-1, int(math.Ceil(ymax)))
	xs := make([]float64, 0, 8)
	for y := y0; y <= y1; y++ {
		yc := float64(y) + 0.5
		xs = xs[:0]
		for i := 0; i < n; i++ {
			x1, y1e := p[2*i], p[2*i+1]
			j := (i + 1) % n
			x2, y2e := p[2*j], p[2*j+1]
			if (y1e <= yc && y2e > yc) || (y2e <= yc && y1e > yc) {
				xs = append(xs, x1+(yc-y1e)/(y2e-y1e)*(x2-x1))
			}
		}
		sortFloats(xs)
		for k := 0; k+1 < len(xs); k += 2 {
			xa := max(0, int(math.Ceil(xs[k]-0.5)))
			xb := min(r.w-1, int(math.Floor(xs[k+1]-0.5)))
			for x := xa; x <= xb; x++ {
				r.blend(x, y, c, a)
			}
		}
	}
}

func sortFloats(x []float64) {
	for i := 1; i < len(x); i++ {
		for j := i; j > 0 && x[j] < x[j-1]; j-- {
			x[j], x[j-1] = x[j-1], x[j]
		}
	}
}

// strokePath strokes consecutive segments as thick quads; dash is an SVG
// dash array in unscaled pixels.
func (r *raster) strokePath(p []float64, closed bool, c rgb, a, width float64, dash string) {
	n := len(p) / 2
	var pattern []float64
	for _, f := range strings.Split(dash, ",") {
		if v, err := strconv.ParseFloat(strings.TrimSpace(f), 64); err == nil && v > 0 {
			pattern = append(pattern, v*ss)
		}
	}
	segs := n - 1
	if closed {
		segs = n
	}
	// A small mask avoids double-blending where quads of one path overlap.
	mask := map[int]struct{}{}
	plot := func(x, y int) {
		if x < 0 || y < 0 || x >= r.w || y >= r.h {
			return
		}
		k := y*r.w + x
		if _, done := mask[k]; done {
			return
		}
		mask[k] = struct{}{}
		r.blend(x, y, c, a)
	}
	phase, pi := 0.0, 0
	for s := 0; s < segs; s++ {
		x1, y1 := p[2*s], p[2*s+1]
		e := (s + 1) % n
		x2, y2 := p[2*e], p[2*e+1]
		length := math.Hypot(x2-x1, y2-y1)
		if len(pattern) == 0 {
			r.thickSegment(x1, y1, x2, y2, width, plot)
			continue
		}
		t := 0.0
		for t < length {
			seg := math.Min(pattern[pi]-phase, length-t)
			if pi%2 == 0 {
				f0, f1 := t/length, (t+seg)/length
				r.thickSegment(x1+(x2-x1)*f0, y1+(y2-y1)*f0, x1+(x2-x1)*f1, y1+(y2-y1)*f1, width, plot)
			}
			t += seg
			phase += seg
			if phase >= pattern[pi]-1e-9 {
				phase = 0
				pi = (pi + 1) % len(pattern)
			}
		}
	}
}

// thickSegment covers the pixels whose centres lie within width/2 of the
// segment (a capsule).
func (r *raster) thickSegment(x1, y1, x2, y2, width float64, plot func(x, y int)) {
	hw := math.Max(width/2, 0.5)
	xa := int(math.Floor(math.Min(x1, x2) - hw))
	xb := int(math.Ceil(math.Max(x1, x2) + hw))
	ya := int(math.Floor(math.Min(y1, y2) - hw))
	yb := int(math.Ceil(math.Max(y1, y2) + hw))
	dx, dy := x2-x1, y2-y1
	l2 := dx*dx + dy*dy
	for y := max(ya, 0); y <= min(yb, r.h-1); y++ {
		for x := max(xa, 0); x <= min(xb, r.w-1); x++ {
			px, py := float64(x)+0.5, float64(y)+0.5
			t := 0.0
			if l2 > 0 {
				t = math.Max(0, math.Min(1, ((px-x1)*dx+(py-y1)*dy)/l2))
			}
			qx, qy := x1+t*dx-px, y1+t*dy-py
			if qx*qx+qy*qy <= hw*hw {
				plot(x, y)
			}
		}
	}
}

func (r *raster) disc(cx, cy, rad float64, c rgb, a float64) {
	for y := max(0, int(cy-rad-1)); y <= min(r.h-1, int(cy+rad+1)); y++ {
		for x := max(0, int(cx-rad-1)); x <= min(r.w-1, int(cx+rad+1)); x++ {
			dx, dy := float64(x)+0.5-cx, float64(y)+0.5-cy
			if dx*dx+dy*dy <= rad*rad {
				r.blend(x, y, c, a)
			}
		}
	}
}

func (r *raster) ring(cx, cy, rad, width float64, c rgb, a float64) {
	ro, ri := rad+width/2, math.Max(rad-width/2, 0)
	for y := max(0, int(cy-ro-1)); y <= min(r.h-1, int(cy+ro+1)); y++ {
		for x := max(0, int(cx-ro-1)); x <= min(r.w-1, int(cx+ro+1)); x++ {
			dx, dy := float64(x)+0.5-cx, float64(y)+0.5-cy
			d2 := dx*dx + dy*dy
			if d2 <= ro*ro && d2 >= ri*ri {
				r.blend(x, y, c, a)
			}
		}
	}
}

// text draws s with its baseline at (x, y) (supersampled coordinates),
// rotated by -90 degrees when rotate is about -90 and unrotated otherwise.
func (r *raster) text(x, y float64, s string, size float64, anchor string, rotate float64) {
	scale := ss * max(1, int(math.Round(size/13)))
	runes := []rune(s)
	cells := 0
	for _, ch := range runes {
		if !combining(ch) {
			cells++
		}
	}
	width := float64(6 * scale * cells)
	off := 0.0
	switch anchor {
	case "middle":
		off = -width / 2
	case "end":
		off = -width
	}
	vertical := math.Abs(rotate+90) < 1
	black := rgb{0.1, 0.1, 0.1}
	i := -1
	for _, ch := range runes {
		var g [13]uint8
		if combining(ch) {
			// Drawn over the previous cell (or the first, if none).
			g = accents[ch]
			i = max(i, 0)
		} else {
			i++
			var ok bool
			if g, ok = glyphs6x13[ch]; !ok {
				g = [13]uint8{0, 0, 0xf8, 0x88, 0x88, 0x88, 0x88, 0x88, 0x88, 0xf8, 0, 0, 0}
			}
		}
		for row := 0; row < 13; row++ {
			bits := g[row]
			for col := 0; col < 6; col++ {
				if bits&(0x80>>col) == 0 {
					continue
				}
				// Glyph-space offset from the text origin: along the text
				// direction u, and down from the baseline v.
				u := off + float64((6*i+col)*scale)
				v := float64((row - 11) * scale)
				for sy := 0; sy < scale; sy++ {
					for sx := 0; sx < scale; sx++ {
						var px, py float64
						if vertical {
							px, py = x+v+float64(sy), y-u-float64(sx)
						} else {
							px, py = x+u+float64(sx), y+v+float64(sy)
						}
						r.blend(int(px), int(py), black, 1)
					}
				}
			}
		}
	}
}

// combining reports whether ch is a combining diacritical mark
// (U+0300–U+036F), drawn over the previous character instead of in a cell
// of its own.
func combining(ch rune) bool { return ch >= 0x0300 && ch <= 0x036f }

// accents holds the combining marks the labels use (R̂, θ̂, x̄, ṡ, x̃),
// drawn in the two rows above the capital height of glyphs6x13; other
// combining marks are drawn as nothing.
var accents = map[rune][13]uint8{
	0x0302: {0x20, 0x50}, // circumflex
	0x0303: {0x68, 0xb0}, // tilde
	0x0304: {0x00, 0xf8}, // macron
	0x0305: {0x00, 0xf8}, // overline
	0x0307: {0x00, 0x20}, // dot above
	0x0308: {0x00, 0x50}, // diaeresis
}

// String reports the canvas size and primitive count, for debugging.
func (c *Canvas) String() string {
	return fmt.Sprintf("plot.Canvas(%gx%g, %d primitives)", c.W, c.H, len(c.items))
}
