// Marks the page body with how many of its images loaded ("loaded/total"), for
// docs/check_site.py, which reads it from headless Chromium's DOM.
window.addEventListener("load", function () {
  var images = Array.prototype.slice.call(document.images);
  var loaded = images.filter(function (img) { return img.complete && img.naturalWidth > 0; });
  document.body.setAttribute("data-images", loaded.length + "/" + images.length);
});
