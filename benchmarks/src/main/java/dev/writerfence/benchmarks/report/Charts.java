package dev.writerfence.benchmarks.report;

import java.awt.Color;
import java.io.IOException;
import java.nio.file.Path;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.data.category.DefaultCategoryDataset;

/** PNG charts of the report, drawn by JFreeChart from the parsed results. */
final class Charts {
  private static final int WIDTH = 900;
  private static final int HEIGHT = 480;

  private Charts() {}

  /**
   * A bar chart, bars grouped by category with one colour per series.
   *
   * @param file where to write the PNG
   * @param title the chart's title
   * @param categoryLabel the category axis label
   * @param valueLabel the value axis label
   * @param data series × category values
   * @param horizontal bars drawn horizontally (long category names)
   * @throws IOException when the file cannot be written
   */
  static void bars(
      Path file,
      String title,
      String categoryLabel,
      String valueLabel,
      DefaultCategoryDataset data,
      boolean horizontal)
      throws IOException {
    JFreeChart chart =
        ChartFactory.createBarChart(
            title,
            categoryLabel,
            valueLabel,
            data,
            horizontal ? PlotOrientation.HORIZONTAL : PlotOrientation.VERTICAL,
            data.getRowCount() > 1,
            false,
            false);
    save(file, chart);
  }

  /**
   * A line chart over categories (thread counts), optionally on a logarithmic value axis.
   *
   * @param file where to write the PNG
   * @param title the chart's title
   * @param categoryLabel the category axis label
   * @param valueLabel the value axis label
   * @param data series × category values
   * @param logarithmic whether the value axis is logarithmic
   * @throws IOException when the file cannot be written
   */
  static void lines(
      Path file,
      String title,
      String categoryLabel,
      String valueLabel,
      DefaultCategoryDataset data,
      boolean logarithmic)
      throws IOException {
    JFreeChart chart =
        ChartFactory.createLineChart(
            title, categoryLabel, valueLabel, data, PlotOrientation.VERTICAL, true, false, false);
    if (logarithmic) {
      LogAxis axis = new LogAxis(valueLabel);
      axis.setSmallestValue(1e-3);
      ((CategoryPlot) chart.getPlot()).setRangeAxis(axis);
    }
    save(file, chart);
  }

  private static void save(Path file, JFreeChart chart) throws IOException {
    chart.setBackgroundPaint(Color.WHITE);
    chart.getPlot().setBackgroundPaint(new Color(0xF4F4F4));
    ChartUtils.saveChartAsPNG(file.toFile(), chart, WIDTH, HEIGHT);
  }
}
