//===- Svg.cpp - the roofline and sweep charts, as SVG text ---------------===//
//
// Log-log charts drawn by hand: a plot area with decade grid lines, lines
// for the ceilings, and markers for the workloads. Points are numbered on
// the chart and named in a legend beside it, so labels never overlap.
//
//===----------------------------------------------------------------------===//

#include "tilec/PerfModel/Report.h"

#include "Format.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

using namespace tilec::perfmodel;

namespace {

std::string escape(const std::string &text) {
  std::string out;
  for (char c : text) {
    switch (c) {
    case '&':
      out += "&amp;";
      break;
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '"':
      out += "&quot;";
      break;
    default:
      out += c;
    }
  }
  return out;
}

/// "1 G", "100 T": a decade with an SI prefix.
std::string decadeLabel(double v, const char *unit) {
  static const char *prefixes[] = {"p", "n", "u", "m", "", "K",
                                   "M", "G", "T", "P", "E"};
  int e = int(std::lround(std::log10(v)));
  int group = (e >= 0 ? e / 3 : -((-e + 2) / 3));
  int index = group + 4;
  if (index < 0 || index > 10)
    return format("1e%d%s", e, unit);
  int mantissa = int(std::lround(std::pow(10, e - 3 * group)));
  return format("%d %s%s", mantissa, prefixes[index], unit);
}

/// A log-log plot area.
class Chart {
public:
  Chart(double width, double height, double left, double right, double top,
        double bottom)
      : width_(width), height_(height), left_(left), right_(right), top_(top),
        bottom_(bottom) {}

  void setRange(double xmin, double xmax, double ymin, double ymax) {
    lx0_ = std::floor(std::log10(xmin));
    lx1_ = std::ceil(std::log10(xmax));
    ly0_ = std::floor(std::log10(ymin));
    ly1_ = std::ceil(std::log10(ymax));
    if (lx1_ <= lx0_)
      lx1_ = lx0_ + 1;
    if (ly1_ <= ly0_)
      ly1_ = ly0_ + 1;
  }
  double xmin() const { return std::pow(10, lx0_); }
  double xmax() const { return std::pow(10, lx1_); }
  double ymin() const { return std::pow(10, ly0_); }
  double ymax() const { return std::pow(10, ly1_); }

  double X(double x) const {
    return left_ + (std::log10(x) - lx0_) / (lx1_ - lx0_) * (right_ - left_);
  }
  double Y(double y) const {
    return bottom_ - (std::log10(y) - ly0_) / (ly1_ - ly0_) * (bottom_ - top_);
  }
  bool inside(double x, double y) const {
    return x >= xmin() && x <= xmax() && y >= ymin() && y <= ymax();
  }

  void begin(const std::string &title) {
    out_ += format("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
                   "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
                   "font-family=\"Helvetica, Arial, sans-serif\" "
                   "font-size=\"12\">\n",
                   width_, height_, width_, height_);
    out_ += format("<rect width=\"%.0f\" height=\"%.0f\" fill=\"white\"/>\n",
                   width_, height_);
    text(left_, 24, title, "start", 15, "bold");
  }
  /// `xUnit` null: plain numbers on x (0.01, 0.1, 1, 10), else prefixes.
  void axes(const std::string &xTitle, const std::string &yTitle,
            const char *xUnit, const char *yUnit) {
    for (double e = lx0_; e <= lx1_ + 1e-9; ++e) {
      double x = X(std::pow(10, e));
      line(x, top_, x, bottom_, "#e4e4e4", 1);
      text(x, bottom_ + 16,
           xUnit ? decadeLabel(std::pow(10, e), xUnit)
                 : format("%g", std::pow(10, e)),
           "middle");
    }
    for (double e = ly0_; e <= ly1_ + 1e-9; ++e) {
      double y = Y(std::pow(10, e));
      line(left_, y, right_, y, "#e4e4e4", 1);
      text(left_ - 6, y + 4, decadeLabel(std::pow(10, e), yUnit), "end");
    }
    out_ += format("<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                   "height=\"%.1f\" fill=\"none\" stroke=\"#555\"/>\n",
                   left_, top_, right_ - left_, bottom_ - top_);
    text((left_ + right_) / 2, bottom_ + 38, xTitle, "middle", 13);
    out_ += format("<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
                   "font-size=\"13\" transform=\"rotate(-90 %.1f %.1f)\">%s"
                   "</text>\n",
                   left_ - 62, (top_ + bottom_) / 2, left_ - 62,
                   (top_ + bottom_) / 2, escape(yTitle).c_str());
  }
  void line(double x0, double y0, double x1, double y1, const char *color,
            double width, const char *dash = nullptr) {
    out_ +=
        format("<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
               "stroke=\"%s\" stroke-width=\"%.1f\"%s/>\n",
               x0, y0, x1, y1, color, width,
               dash ? format(" stroke-dasharray=\"%s\"", dash).c_str() : "");
  }
  void polyline(const std::vector<std::pair<double, double>> &pts,
                const char *color, double width, const char *dash = nullptr) {
    if (pts.size() < 2)
      return;
    std::string p;
    for (const auto &[x, y] : pts)
      p += format("%.1f,%.1f ", X(x), Y(y));
    out_ +=
        format("<polyline points=\"%s\" fill=\"none\" stroke=\"%s\" "
               "stroke-width=\"%.1f\"%s/>\n",
               p.c_str(), color, width,
               dash ? format(" stroke-dasharray=\"%s\"", dash).c_str() : "");
  }
  void circle(double px, double py, double r, const char *color, bool filled) {
    out_ += format("<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"%s\" "
                   "stroke=\"%s\" stroke-width=\"1.5\"/>\n",
                   px, py, r, filled ? color : "white", color);
  }
  void text(double x, double y, const std::string &s,
            const char *anchor = "start", int size = 12,
            const char *weight = "normal", const char *color = "#222") {
    out_ += format("<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" "
                   "font-size=\"%d\" font-weight=\"%s\" fill=\"%s\">",
                   x, y, anchor, size, weight, color);
    out_ += escape(s) + "</text>\n";
  }
  /// Text rotated by `degrees` around its anchor point.
  void rotatedText(double x, double y, double degrees, const std::string &s) {
    out_ += format("<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" "
                   "fill=\"#333\" transform=\"rotate(%.1f %.1f %.1f)\">",
                   x, y, degrees, x, y);
    out_ += escape(s) + "</text>\n";
  }
  std::string end() {
    out_ += "</svg>\n";
    return std::move(out_);
  }

  double right() const { return right_; }
  double top() const { return top_; }
  double bottom() const { return bottom_; }
  double left() const { return left_; }

private:
  double width_, height_, left_, right_, top_, bottom_;
  double lx0_ = 0, lx1_ = 1, ly0_ = 0, ly1_ = 1;
  std::string out_;
};

const char *regimeColor(const std::string &regime) {
  if (regime == "bandwidth")
    return "#1f77b4";
  if (regime == "compute")
    return "#d62728";
  if (regime == "overhead")
    return "#9467bd";
  return "#7f7f7f";
}

} // namespace

std::string tilec::perfmodel::rooflineSvg(const ProfileRun &run) {
  const DeviceModel &m = run.model;
  struct Point {
    int number;
    std::string name, regime, detail;
    double x, yPredicted, yMeasured; // yMeasured 0 when not measured
  };
  std::vector<Point> points;
  for (const WorkloadProfile &w : run.workloads) {
    if (w.analysis.points.empty())
      continue;
    const WorkloadPoint &p = w.analysis.points[0];
    double ops = p.work().totalOps();
    double bytes = double(p.minimalBytes());
    if (ops <= 0 || bytes <= 0)
      continue;
    Prediction pred = p.predict(m);
    Point pt{int(points.size()) + 1,
             w.analysis.name,
             pred.regime(),
             "",
             ops / bytes,
             ops / pred.floor,
             0};
    pt.detail = "predicted " + pred.regime();
    if (!w.measured.empty() && w.measured[0].deviceSeconds > 0) {
      Verdict v = judgeWorkload(w, m);
      pt.yMeasured = ops / w.measured[0].deviceSeconds;
      pt.regime = v.regime;
      pt.detail = v.regime + (v.pipe.empty() ? "" : " (" + v.pipe + ")") +
                  format(", %.0f%% of BW", 100 * v.bandwidthFraction);
      if (!v.computePipe.empty() && v.computeFraction >= 0.01)
        pt.detail += format(", %.0f%% of %s", 100 * v.computeFraction,
                            v.computePipe.c_str());
    }
    points.push_back(pt);
  }

  struct Roof {
    std::string label;
    double ops; // per second
  };
  double bw = m.bandwidthGBps * 1e9;
  std::vector<Roof> roofs = {
      {format("bf16 tensor %.0f TFLOP/s", m.tensorBf16TFlops),
       m.tensorBf16TFlops * 1e12},
      {format("fp32 FMA %.1f TFLOP/s", m.fp32TFlops), m.fp32TFlops * 1e12},
      {format("special functions (MUFU) %.2f T/s", m.sfuTops),
       m.sfuTops * 1e12}};

  double xmin = 0.01, xmax = 1e3, ymin = 1e10;
  double ymax = 0;
  for (const Roof &r : roofs) {
    xmax = std::max(xmax, 4 * r.ops / bw);
    ymax = std::max(ymax, 2 * r.ops);
  }
  for (const Point &p : points) {
    xmin = std::min(xmin, p.x / 2);
    xmax = std::max(xmax, p.x * 2);
    for (double y : {p.yPredicted, p.yMeasured})
      if (y > 0) {
        ymin = std::min(ymin, y / 3);
        ymax = std::max(ymax, y * 2);
      }
  }
  ymin = std::max(ymin, ymax / 1e9);
  ymin = std::min(ymin, bw * xmin);

  // Plot area 90..680 wide, legend to its right.
  Chart c(1040, 640, 90, 680, 50, 570);
  c.setRange(xmin, xmax, ymin, ymax);
  c.begin("Roofline on " + (run.device.empty() ? m.name : run.device) +
          ", ceilings of " + m.name);
  c.axes("arithmetic intensity (ops per byte of minimal traffic)",
         "ops per second", nullptr, "");

  // The DRAM diagonal up to the highest roof, then each roof flat.
  double top = roofs.front().ops;
  for (const Roof &r : roofs)
    top = std::max(top, r.ops);
  std::vector<std::pair<double, double>> diag;
  double x0 = c.xmin(), x1 = std::min(c.xmax(), top / bw);
  diag.push_back({x0, std::max(bw * x0, c.ymin())});
  diag.push_back({x1, bw * x1});
  if (bw * x0 >= c.ymin())
    c.polyline(diag, "#333", 2);
  else {
    double xs = c.ymin() / bw;
    c.polyline({{xs, c.ymin()}, {x1, bw * x1}}, "#333", 2);
  }
  // Label along the diagonal, one decade in from the left.
  double dx = c.xmin() * 3, dy = bw * dx;
  if (c.inside(dx, dy)) {
    double angle =
        std::atan2(c.Y(bw * dx * 10) - c.Y(dy), c.X(dx * 10) - c.X(dx)) * 180 /
        M_PI;
    c.rotatedText(c.X(dx), c.Y(dy) - 6, angle,
                  format("DRAM %.0f GB/s", m.bandwidthGBps));
  }
  for (const Roof &r : roofs) {
    if (r.ops <= 0 || r.ops < c.ymin())
      continue;
    double ridge = r.ops / bw;
    c.line(c.X(std::max(ridge, c.xmin())), c.Y(r.ops), c.X(c.xmax()),
           c.Y(r.ops), "#333", 2);
    c.text(c.X(c.xmax()) - 4, c.Y(r.ops) - 5, r.label, "end", 11, "normal",
           "#333");
  }
  std::vector<std::pair<double, double>> labels; // placed so far
  for (const Point &p : points) {
    const char *color = regimeColor(p.regime);
    double px = c.X(p.x);
    if (p.yMeasured > 0)
      c.line(px, c.Y(p.yPredicted), px, c.Y(p.yMeasured), color, 1, "3,3");
    c.circle(px, c.Y(p.yPredicted), 5, color, false);
    if (p.yMeasured > 0)
      c.circle(px, c.Y(p.yMeasured), 5, color, true);
    // Points of equal intensity and rate would stack their numbers: move
    // a label down until it is clear of those placed before.
    double lx = px + 7,
           ly = c.Y(p.yMeasured > 0 ? p.yMeasured : p.yPredicted) + 4;
    for (bool moved = true; moved;) {
      moved = false;
      for (const auto &[ox, oy] : labels)
        if (std::fabs(ox - lx) < 16 && std::fabs(oy - ly) < 11) {
          ly = oy + 12;
          moved = true;
        }
    }
    labels.push_back({lx, ly});
    c.text(lx, ly, std::to_string(p.number), "start", 11, "bold", color);
  }
  // The legend names the numbered points.
  double lx0 = c.right() + 20, ly0 = c.top() + 8;
  c.text(lx0, ly0, "hollow: predicted floor, filled: measured", "start", 11);
  double y = ly0 + 24;
  for (const Point &p : points) {
    const char *color = regimeColor(p.regime);
    c.circle(lx0 + 5, y - 4, 4, color, true);
    c.text(lx0 + 14, y, std::to_string(p.number) + ". " + p.name, "start", 11,
           "bold", color);
    c.text(lx0 + 14, y + 13, p.detail, "start", 10, "normal", "#444");
    y += 32;
  }
  double ky = c.bottom() - 48;
  for (const char *r : {"bandwidth", "compute", "overhead"}) {
    c.circle(lx0 + 5, ky - 4, 4, regimeColor(r), true);
    c.text(lx0 + 14, ky, std::string(r) + "-bound", "start", 11);
    ky += 16;
  }
  return c.end();
}

std::string tilec::perfmodel::sweepSvg(const WorkloadProfile &w,
                                       const DeviceModel &m) {
  const WorkloadAnalysis &a = w.analysis;
  struct Row {
    double n, predicted, device, wall;
  };
  std::vector<Row> rows;
  for (size_t i = 0; i < a.points.size(); ++i) {
    double n = 0;
    for (const auto &[name, value] : a.points[i].vars)
      if (name == a.batchVar)
        n = double(value);
    if (n <= 0)
      continue;
    Row r{n, a.points[i].predict(m).floor, 0, 0};
    if (i < w.measured.size()) {
      r.device = w.measured[i].deviceSeconds;
      r.wall = w.measured[i].wallSeconds;
    }
    rows.push_back(r);
  }
  std::sort(rows.begin(), rows.end(),
            [](const Row &x, const Row &y) { return x.n < y.n; });
  Chart c(900, 560, 90, 640, 50, 490);
  double xmin = std::numeric_limits<double>::max(), xmax = 0;
  double ymin = std::numeric_limits<double>::max(), ymax = 0;
  for (const Row &r : rows) {
    xmin = std::min(xmin, r.n);
    xmax = std::max(xmax, r.n);
    for (double t : {r.predicted, r.device, r.wall})
      if (t > 0) {
        ymin = std::min(ymin, t);
        ymax = std::max(ymax, t);
      }
  }
  if (rows.empty()) {
    xmin = 1, xmax = 10, ymin = 1e-6, ymax = 1e-3;
  }
  c.setRange(xmin / 1.5, xmax * 1.5, ymin / 2, ymax * 2);
  c.begin(a.name + ": time against " + a.batchVar + " on " + m.name);
  c.axes(a.batchVar, "time per iteration", "", "s");
  std::vector<std::pair<double, double>> pred, dev, wall;
  for (const Row &r : rows) {
    pred.push_back({r.n, r.predicted});
    if (r.device > 0)
      dev.push_back({r.n, r.device});
    if (r.wall > 0)
      wall.push_back({r.n, r.wall});
  }
  c.polyline(pred, "#7f7f7f", 2, "6,4");
  c.polyline(dev, "#1f77b4", 2);
  c.polyline(wall, "#ff7f0e", 2);
  for (const auto &[n, t] : dev)
    c.circle(c.X(n), c.Y(t), 4, "#1f77b4", true);
  for (const auto &[n, t] : wall)
    c.circle(c.X(n), c.Y(t), 4, "#ff7f0e", true);
  double lx = c.right() + 20, ly = c.top() + 10;
  c.line(lx, ly - 4, lx + 24, ly - 4, "#7f7f7f", 2, "6,4");
  c.text(lx + 30, ly, "predicted floor");
  c.line(lx, ly + 16, lx + 24, ly + 16, "#1f77b4", 2);
  c.text(lx + 30, ly + 20, "GPU time (events)");
  c.line(lx, ly + 36, lx + 24, ly + 36, "#ff7f0e", 2);
  c.text(lx + 30, ly + 40, "wall time in a loop");
  c.text(lx, ly + 70, format("launch overhead %.1f us", m.launchUs), "start",
         11);
  c.text(lx, ly + 86, format("DRAM %.0f GB/s", m.bandwidthGBps), "start", 11);
  return c.end();
}
